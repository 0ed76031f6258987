/**
 * `npm run repair` (docs/operations.md): a payment whose run an operator terminated, or reset to a
 * point behind the read model, gets a new run from the durable state and completes through the
 * API with nothing doubled in its history, ledger or webhooks; a healthy payment is left alone.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { temporal as proto } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const run = promisify(execFile);
const stack = useStack();
const acct = useAccount(stack);
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  const hook = await stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url: receiver.url } });
  expect(hook.status).toBe(201);
});
afterAll(async () => {
  await receiver?.close();
});

const act = async (id: string, action: string, body?: unknown) => {
  const res = await stack.http.post(`/api/v1/payments/${id}/${action}`, { key: acct.test_api_key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
async function paymentIn(actions: string[], over: Record<string, unknown> = {}): Promise<string> {
  const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment(over) });
  expect(p.status).toBe(201);
  for (const action of actions) await act(p.body.id, action);
  return p.body.id as string;
}
const runStatus = async (id: string) => (await stack.client.workflow.getHandle(id).describe()).status.name;
const runId = async (id: string) => (await stack.client.workflow.getHandle(id).describe()).runId;

/** The script, as an operator runs it, against this test's database, Temporal and task queue. */
const repairCli = (...args: string[]) =>
  run('npx', ['tsx', 'scripts/repair.ts', ...args], {
    cwd: path.resolve(__dirname, '..'),
    env: {
      ...process.env,
      DATABASE_URL: stack.config.DATABASE_URL,
      TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
    },
  });

/**
 * Nothing doubled: one history row per version, one ledger entry per money movement, one delivery
 * per event, each received once (`resentByReset`: events a reset itself sent again, before repair;
 * `delivered`: the events, when a step emits more than its own, as a split does).
 */
async function expectNothingDoubled(id: string, events: string[], resentByReset: string[] = [], delivered = events) {
  const history = (await stack.db('payment_events').where({ payment_id: id }).orderBy('seq')) as { seq: number; event: string }[];
  expect(history.map((h) => h.event)).toEqual(events);
  expect(history.map((h) => h.seq)).toEqual(events.map((_, i) => i + 1));
  const entries = (await stack.db('ledger_entries').where({ payment_id: id })) as { version: number }[];
  expect(new Set(entries.map((e) => e.version)).size).toBe(entries.length);
  expect(await stack.services.ledger.verify(acct.account_id)).toEqual([]);
  const deliveries = await eventually(
    async () => {
      const rows = (await stack.db('webhook_deliveries').where({ payment_id: id })) as { id: string; event: string; status: string }[];
      return rows.length === delivered.length && rows.every((r) => r.status === 'succeeded') ? rows : undefined;
    },
    30_000,
    'every delivery to succeed',
  );
  expect(deliveries.map((d) => d.event).sort()).toEqual([...delivered].sort());
  for (const d of deliveries) {
    const received = receiver.received.filter((r) => r.headers['webhook-id'] === d.id).length;
    if (resentByReset.includes(d.event)) expect(received).toBeGreaterThanOrEqual(1);
    else expect(received, d.event).toBe(1);
  }
}

describe('npm run repair', () => {
  it('a payment terminated in custody gets a new run from the read model and is released through the API', async () => {
    const id = await paymentIn(['deposit']);
    await stack.client.workflow.getHandle(id).terminate('an operator pressed Terminate');
    // Before the repair the payment cannot move: its run is gone.
    const stuck = await stack.http.post(`/api/v1/payments/${id}/approve`, { key: acct.test_api_key });
    expect(stuck.status).not.toBe(200);

    const repaired = await stack.services.repair.repair(id);
    expect(repaired).toMatchObject({ paymentId: id, found: 'start' });
    expect(repaired.why).toContain('terminated');
    expect(await runStatus(id)).toBe('RUNNING');
    // Idempotent: a second repair finds the new run healthy and starts nothing.
    const again = await stack.services.repair.repair(id);
    expect(again.found).toBe('healthy');
    expect(await runId(id)).toBe(repaired.runId);

    await act(id, 'approve');
    expect((await act(id, 'release')).status).toBe('released');
    expect(await stack.client.workflow.getHandle(id).result()).toMatchObject({ status: 'released', version: 4 });
    await expectNothingDoubled(id, ['payment.created', 'payment.deposited', 'payment.approved', 'payment.released']);
  });

  it('a payment terminated while disputed is repaired by the command and resolved through the API', async () => {
    const id = await paymentIn(['deposit', 'dispute'], { amount: 80, platform_fee: 4 });
    await stack.client.workflow.getHandle(id).terminate('an operator pressed Terminate');

    const { stdout } = await repairCli('--payment', id);
    expect(stdout).toContain(`${id} start: disputed in the read model, but its run is terminated → new run`);
    expect(stdout).toContain('1 checked, 1 repaired');
    expect((await repairCli('--payment', id)).stdout).toContain(`${id} healthy`);

    const done = await act(id, 'resolve', { resolution: 'split', refund_amount: 30 });
    expect(done.status).toBe('released');
    const history = ['payment.created', 'payment.deposited', 'payment.disputed', 'payment.released'];
    // Opening and resolving the dispute each also told payment.dispute_updated (docs/concepts.md, "Disputes").
    const delivered = [...history, 'payment.partially_refunded', 'payment.dispute_updated', 'payment.dispute_updated'];
    await expectNothingDoubled(id, history, [], delivered);
    // The repaired run carried the dispute's record on from the read model.
    expect(done.dispute).toMatchObject({ status: 'resolved', resolution: { decided_by: 'platform', refund_amount: 30 } });
    const [row] = await stack.db('payments').where({ id });
    expect([String(row.held_minor), String(row.refunded_minor)]).toEqual(['0', '3000']);
  });

  it('a run reset behind the read model is replaced by a run from the read model', async () => {
    const id = await paymentIn(['deposit', 'approve']);
    const handle = stack.client.workflow.getHandle(id);
    const { events } = await handle.fetchHistory();
    // The first workflow task: the run as it was before the deposit.
    const firstTask = events!.find((e) => e.workflowTaskCompletedEventAttributes)!;
    const before = await runId(id);
    await stack.client.workflowService.resetWorkflowExecution({
      namespace: stack.client.options.namespace,
      workflowExecution: { workflowId: id, runId: before },
      workflowTaskFinishEventId: firstTask.eventId,
      reason: 'an operator reset the payment',
      requestId: `reset-${id}`,
      // The deposit and approval are not applied again: the run is left behind the read model.
      resetReapplyType: proto.api.enums.v1.ResetReapplyType.RESET_REAPPLY_TYPE_NONE,
    });
    await eventually(async () => (await handle.query<{ version: number }>('getPayment')).version === 1 || undefined);

    const repaired = await stack.services.repair.repair(id);
    expect(repaired.found).toBe('replace');
    expect(repaired.why).toContain('behind the read model');
    expect((await handle.query<{ status: string }>('getPayment')).status).toBe('pending_release');

    expect((await act(id, 'release')).status).toBe('released');
    // The reset itself replays the creation's side effects (same delivery id); repair adds nothing.
    await expectNothingDoubled(id, ['payment.created', 'payment.deposited', 'payment.approved', 'payment.released'], ['payment.created']);
  });

  it('a healthy payment is left alone, and --all reports every open payment without starting a run', async () => {
    const id = await paymentIn(['deposit']);
    const before = await runId(id);
    expect(await stack.services.repair.repair(id)).toMatchObject({ found: 'healthy' });
    const all = await stack.services.repair.repairAll(acct.account_id);
    expect(all.find((r) => r.paymentId === id)).toMatchObject({ found: 'healthy' });
    expect(await runId(id)).toBe(before);
    expect(await runStatus(id)).toBe('RUNNING');
    const refused = await repairCli('--payment', 'not-a-payment').catch((err: { code: number; stderr: string }) => err);
    expect(refused).toMatchObject({ code: 2 });
    const cli = await repairCli('--all', '--account', acct.account_id);
    expect(cli.stdout).toContain(`${id} healthy: running at version 2`);
    expect(cli.stdout).toMatch(/\d+ checked, 0 repaired/);
  });
});
