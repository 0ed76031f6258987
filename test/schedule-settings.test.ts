/**
 * A changed LEDGER_VERIFY_INTERVAL or PAYOUT_BATCH_INTERVAL reaches its Temporal Schedule at the
 * worker's next start, which says so in its log; the staleness gauge reports what the schedule runs
 * (docs/settings.md). Real Temporal: the schedules are read back from the server.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/lib/logger';
import { auditScheduleId } from '../src/audit/audit.service';
import { buildStack, type Stack } from '../src/platform/stack';
import { ledgerScheduleId, payoutBatchScheduleId } from '../src/platform/worker/schedules';

const taskQueue = `test-schedules-${randomUUID()}`;

/** A stack on this file's task queue with these intervals; its log lines collected in `lines`. */
async function start(env: Record<string, string>, lines: Record<string, unknown>[]): Promise<Stack> {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    SERVICE_JWT_SECRET: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    STACK_PORTS: inject('temporalPorts'),
    API_METRICS_PORT: '0',
    ...env,
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return buildStack({
    config,
    logger: pino({ level: 'info' }, sink),
    runtimeLogger: createLogger('error'),
    worker: { workflowBundlePath: inject('workflowBundlePath') },
    api: { port: 0 },
  });
}

async function gauge(stack: Stack, name: string): Promise<number> {
  const text = await fetch(`${stack.api!.metricsUrl}/metrics`).then((r) => r.text());
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

describe('schedules follow the settings', () => {
  let running: Stack | undefined;
  afterAll(async () => {
    if (!running) return;
    for (const id of [ledgerScheduleId(taskQueue), payoutBatchScheduleId(taskQueue), auditScheduleId(taskQueue)]) {
      await running.client.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    }
    await running.stop();
  });

  it('a restart with other intervals updates both schedules, logs it, and the gauge reports the new interval', async () => {
    const first: Record<string, unknown>[] = [];
    running = await start({ LEDGER_VERIFY_INTERVAL: '7 min', PAYOUT_BATCH_INTERVAL: '2h' }, first);
    const every = async (id: string) => Number((await running!.client.schedule.getHandle(id).describe()).spec.intervals?.[0]?.every);
    expect([await every(ledgerScheduleId(taskQueue)), await every(payoutBatchScheduleId(taskQueue))]).toEqual([7 * 60_000, 2 * 3600_000]);
    await running.stop();
    running = undefined;

    const second: Record<string, unknown>[] = [];
    running = await start({ LEDGER_VERIFY_INTERVAL: '15s', PAYOUT_BATCH_INTERVAL: '1s' }, second);
    const ledger = await running.client.schedule.getHandle(ledgerScheduleId(taskQueue)).describe();
    const batch = await running.client.schedule.getHandle(payoutBatchScheduleId(taskQueue)).describe();
    expect(ledger.spec.intervals?.map((i) => Number(i.every))).toEqual([15_000]);
    expect(batch.spec.intervals?.map((i) => Number(i.every))).toEqual([1_000]);
    // Still the same schedules, running the same workflows.
    expect([ledger.action.type, ledger.action.type === 'startWorkflow' && ledger.action.workflowType]).toEqual([
      'startWorkflow',
      'ledgerVerifyWorkflow',
    ]);
    expect(batch.action.type === 'startWorkflow' && batch.action.workflowType).toBe('payoutBatchWorkflow');
    const updated = second.filter((l) => typeof l.msg === 'string' && /schedule updated/.test(l.msg)).map((l) => l.schedule_id);
    expect(updated.sort()).toEqual([ledgerScheduleId(taskQueue), payoutBatchScheduleId(taskQueue)].sort());
    expect(await gauge(running, 'ledger_verify_interval_seconds')).toBe(15);

    // The same settings again: nothing to update, nothing logged.
    await running.stop();
    running = undefined;
    const third: Record<string, unknown>[] = [];
    running = await start({ LEDGER_VERIFY_INTERVAL: '15s', PAYOUT_BATCH_INTERVAL: '1s' }, third);
    expect(third.filter((l) => typeof l.msg === 'string' && /schedule (updated|created)/.test(l.msg))).toEqual([]);
  });
});
