/**
 * The periodic ledger check cannot fail silently (docs/money.md): each run covers at most
 * LEDGER_VERIFY_PAGE_SIZE payments and the next goes on from there (its cursor in PostgreSQL,
 * wrapping at the end); a run that fails for real (its database role may not read the postings)
 * shows in the worker's metrics, which the shipped alert rules watch.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, migrate } from '../src/platform/database/knex';
import { checkInWorker } from '../src/ledger/ledgerCheck.service';
import { ledgerScheduleId } from '../src/platform/worker/schedules';
import { ledgerVerifyWorkflow } from '../src/platform/workflows.workflow';
import { type Stack, eventually, startStack, useStack, validPayment } from './helpers/stack';

const PAGE = 3;

async function metric(stack: Stack, name: string): Promise<number> {
  const text = await fetch(`${stack.api.metricsUrl}/metrics`).then((r) => r.text());
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  if (value === undefined) throw new Error(`${name} is not exported`);
  return Number(value);
}

describe('each run checks one page of payments, the next run the next page', () => {
  // On a database of its own: the shared one holds every other file's payments, whose workflows no
  // worker answers once their files have ended, so a full pass there would wait on each.
  const dbName = `ledger_check_${randomUUID().replace(/-/g, '')}`;
  const url = Object.assign(new URL(inject('databaseUrl')), { pathname: `/${dbName}` }).toString();
  const admin = createDb(inject('databaseUrl'));
  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${dbName}`);
    const db = createDb(url);
    await migrate(db).finally(() => db.destroy());
  });
  afterAll(async () => {
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.destroy();
  });
  const stack = useStack({ env: { DATABASE_URL: url, LEDGER_VERIFY_PAGE_SIZE: String(PAGE) } });
  // As the schedule starts it: no input.
  const scheduledRun = () =>
    stack.client.workflow.execute(ledgerVerifyWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `ledger-page-${randomUUID()}`,
      args: [],
    });
  const cursor = async () =>
    ((await stack.db('ledger_check_state').where({ name: stack.taskQueue }).first()) as { after_payment_id: string | null })
      .after_payment_id;

  it('covers at most LEDGER_VERIFY_PAGE_SIZE payments per run, in id order from where the last stopped, and wraps at the end', async () => {
    const acct = await stack.newAccount();
    // More payments than two pages hold.
    for (let i = 0; i <= 2 * PAGE; i++)
      expect((await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).status).toBe(201);
    const first = await scheduledRun();
    expect(first.payments).toBe(PAGE);
    const afterFirst = await cursor();
    expect(afterFirst).toMatch(/^pay_/);
    const second = await scheduledRun();
    expect(second.payments).toBe(PAGE);
    const afterSecond = await cursor();
    // The second page lies after the first: exactly PAGE payments between the two cursors.
    const between = await stack.db('payments').where('id', '>', afterFirst).andWhere('id', '<=', afterSecond).count({ n: '*' });
    expect(Number(between[0].n)).toBe(PAGE);

    // Past the last payment: the run reaches the end and the next starts from the first again.
    const last = (await stack.db('payments').max({ id: 'id' }))[0].id as string;
    await stack.db('ledger_check_state').where({ name: stack.taskQueue }).update({ after_payment_id: last });
    const end = await scheduledRun();
    expect(end).toMatchObject({ payments: 0, wrapped: true });
    expect(await cursor()).toBeNull();
    const again = await scheduledRun();
    expect(again.payments).toBe(PAGE);
    const firstIds = (await stack.db('payments').orderBy('id').limit(PAGE).select('id')).map((r: { id: string }) => r.id);
    expect(await cursor()).toBe(firstIds[PAGE - 1]);
  });

  it('a full pass by hand (npm run ledger:verify -- --all) covers every payment, page after page, and leaves the schedule where it was', async () => {
    const before = await cursor();
    const count = Number((await stack.db('payments').count({ n: '*' }))[0].n);
    const full = await checkInWorker(stack.client, { taskQueue: stack.taskQueue, all: true });
    expect(full.wrapped).toBe(true);
    expect(full.payments).toBeGreaterThanOrEqual(count);
    expect(await cursor()).toBe(before);
  });
});

describe('a run that fails shows in the metrics the alerts watch', () => {
  // A worker whose database role may not read the ledger's postings: every run's query fails for real.
  const role = `ledger_check_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = createDb(inject('databaseUrl'));
  let stack: Stack | undefined;
  beforeAll(async () => {
    await admin.raw(`create role ${role} login`);
    await admin.raw(`grant all on all tables in schema public to ${role}`);
    await admin.raw(`grant all on all sequences in schema public to ${role}`);
    await admin.raw(`revoke select on ledger_postings from ${role}`);
    const url = new URL(inject('databaseUrl'));
    url.username = role;
    stack = await startStack({ DATABASE_URL: url.toString() });
  });
  afterAll(async () => {
    await stack?.stop();
    await admin.raw(`drop owned by ${role}`);
    await admin.raw(`drop role ${role}`);
    await admin.destroy();
  });

  it('the last failure is later than the last success until a run completes again; the last success then moves', async () => {
    const s = stack!;
    const success = await metric(s, 'ledger_verify_last_success_timestamp_seconds');
    // The worker reported the check's age from its record when it started.
    expect(success).toBeGreaterThan(0);
    expect(await metric(s, 'ledger_verify_interval_seconds')).toBe(s.config.LEDGER_VERIFY_INTERVAL / 1000);
    expect(await metric(s, 'ledger_verify_last_failure_timestamp_seconds')).toBe(0);

    // The schedule's own run, now.
    await s.client.schedule.getHandle(ledgerScheduleId(s.taskQueue)).trigger();
    const failedAt = await eventually(
      async () => {
        const failed = await metric(s, 'ledger_verify_last_failure_timestamp_seconds');
        return failed > 0 ? failed : undefined;
      },
      30_000,
      'a failed run',
    );
    // LedgerCheckFailed's expression: the last failure is later than the last success, which stayed.
    expect(failedAt).toBeGreaterThan(success);
    expect(await metric(s, 'ledger_verify_last_success_timestamp_seconds')).toBe(success);

    // The permission back: the run's next attempt completes, and the last success passes the failure.
    await admin.raw(`grant select on ledger_postings to ${role}`);
    const completed = await eventually(
      async () => {
        const now = await metric(s, 'ledger_verify_last_success_timestamp_seconds');
        return now > success ? now : undefined;
      },
      45_000,
      'a completed run',
    );
    expect(completed).toBeGreaterThan(await metric(s, 'ledger_verify_last_failure_timestamp_seconds'));
  });
});
