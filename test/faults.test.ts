/**
 * Faults a custody service must ride out without losing, doubling or misreporting money: a
 * projection PostgreSQL refuses, a request whose answer was lost with its database, PostgreSQL
 * crashing mid-transition, the Temporal server SIGKILLed, every worker down, a worker SIGKILLed
 * holding a payment (with milestone releases in flight, too). Every service here is real; the test owns the ones it breaks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { creationEntry } from '../src/payments/payment.rules';
import { requestHash } from '../src/platform/http/idempotency.middleware';
import { projectPayment } from '../src/payments/projection.repository';
import { createDb, migrate } from '../src/platform/database/knex';
import { privateKeyFromSeed, rawPublicKey } from '../src/audit/ed25519';
import { registry } from '../src/platform/lib/metrics';
import { auditScheduleId } from '../src/audit/audit.service';
import { freePort } from '../src/platform/lib/net';
import { getHistoryQuery, getPaymentQuery, paymentWorkflow, actionUpdate, payoutBatchWorkflow } from '../src/platform/workflows.workflow';
import { fileMessageId } from '../src/payouts/payoutBatch.activities';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { settlementFile } from './helpers/bankCredits';
import { startOwnPostgres, startOwnTemporal, type OwnPostgres, type OwnTemporal } from './helpers/ownServices';
import { startReceiver } from './helpers/receiver';
import { samplePaymentDetails } from './helpers/webhooks';
import { eventually, startStack, useStack, validPayment, type Stack } from './helpers/stack';

/** The reason key of these projections (the service derives its own from WEBHOOK_SECRET_KEY). */
const REASON_KEY = Buffer.alloc(32, 7);

const EventType = proto.api.enums.v1.EventType;
const FAST_WEBHOOKS = {
  WEBHOOK_RETRY_INITIAL_INTERVAL: '200ms',
  WEBHOOK_RETRY_MAX_INTERVAL: '1s',
  WEBHOOK_TIMEOUT: '2s',
  WEBHOOK_MAX_ATTEMPTS: '20',
};

describe('against the shared servers', () => {
  const stack = useStack({ env: FAST_WEBHOOKS });

  it('a projection PostgreSQL refuses fails for good, visibly, and the payment’s deadline still fires', async () => {
    const acct = await stack.newAccount();
    const failuresBefore = await projectionFailures();
    // Bytes that got past the edge (or a future bug): NUL in text is refused by PostgreSQL itself.
    const payment = samplePaymentDetails(acct.account_id, {
      description: 'cut\u0000here',
      depositDeadline: new Date(Date.now() + 2000).toISOString(),
    });
    const handle = await stack.client.workflow.start(paymentWorkflow, {
      workflowId: payment.id,
      taskQueue: stack.taskQueue,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [{ payment, actor: 'test' }],
    });
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(await projectionFailures()).toBeGreaterThanOrEqual(failuresBefore + 2); // created, then cancelled
  });

  it('the version guard keeps the durable status, never one written at the same version before it', async () => {
    const acct = await stack.newAccount();
    const created = samplePaymentDetails(acct.account_id);
    await projectPayment(stack.db, created, creationEntry(created, 'test'), REASON_KEY);
    const at = new Date().toISOString();
    const ghost = { ...created, status: 'cancelled' as const, version: 2, updatedAt: at };
    const durable = { ...created, status: 'in_custody' as const, version: 2, updatedAt: at };
    const entry = {
      seq: 2,
      action: 'deposit' as const,
      from: 'pending_deposit' as const,
      to: 'in_custody' as const,
      event: 'payment.deposited' as const,
      actor: 'test',
      reason: null,
      at,
    };
    await projectPayment(stack.db, ghost, { ...entry, action: 'cancel', to: 'cancelled', event: 'payment.cancelled' }, REASON_KEY);
    await projectPayment(stack.db, durable, entry, REASON_KEY);
    expect((await stack.db('payments').where({ id: created.id }).first()).status).toBe('in_custody');
  });

  it('projection runs only after the workflow task that made the transition durable; the creation’s, made of the run’s input, in the first task', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
    await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key });
    await stack.http.post(`/api/v1/payments/${p.body.id}/cancel`, { key }); // 409: not from in_custody
    await stack.http.post(`/api/v1/payments/${p.body.id}/refund`, { key });
    await stack.client.workflow.getHandle(p.body.id).result();
    const events = (await stack.client.workflow.getHandle(p.body.id).fetchHistory()).events ?? [];
    // A local activity writes inside a task that may never complete: only the creation's publication is
    // one, whose every input the run's start made durable, so a task run again writes the same rows.
    const markers = events.filter((e) => e.markerRecordedEventAttributes && e.markerRecordedEventAttributes.markerName !== 'core_patch');
    expect(markers.map((e) => localActivityOf(e))).toEqual([{ type: 'publishTransition', seq: 1 }]);
    expect(markers.map((e) => Number(e.eventId) < firstOf(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, 2))).toEqual([
      true,
    ]);
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'publishTransition');
    expect(scheduled).toHaveLength(2); // deposited, refunded
    for (const e of scheduled) {
      // Scheduled by a completed workflow task: the server accepted that task's every command.
      const task = events.find((t) => Number(t.eventId) === Number(e.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId));
      expect(task?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    }
  });

  it('a retry whose first attempt was applied but never recorded its answer gets the true outcome, not 409', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
    await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key });
    // The state a database outage leaves: the claim made, the update applied in Temporal, the
    // answer never stored (the claim could not be completed or released).
    const idem = `idem-${randomUUID()}`;
    const raw = JSON.stringify({ reason: 'buyer asked' });
    const resourceId = randomUUID().replace(/-/g, '').toUpperCase().slice(0, 26);
    await stack.db('idempotency_keys').insert({
      account_id: acct.account_id,
      livemode: false,
      key: idem,
      resource_id: resourceId,
      request_hash: requestHash('POST', `/api/v1/payments/${p.body.id}/refund`, JSON.parse(raw)),
    });
    await stack.client.workflow
      .getHandle(p.body.id)
      .executeUpdate(actionUpdate('refund'), { args: [{ reason: 'buyer asked', actor: 'test' }], updateId: resourceId });
    const retry = await stack.http.post(`/api/v1/payments/${p.body.id}/refund`, { key, raw, headers: { 'Idempotency-Key': idem } });
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('refunded');
    const history = await stack.client.workflow.getHandle(p.body.id).query(getHistoryQuery);
    expect(history.filter((h) => h.to === 'refunded')).toHaveLength(1);
    await expectLedgerBalanced(stack, acct.account_id, { [p.body.id]: ['deposit', 'refund'] });
  });
});

describe('a worker SIGKILLed while it holds the payment', () => {
  const workers: ChildProcess[] = [];
  afterAll(() => workers.forEach((w) => w.exitCode === null && w.kill('SIGKILL')));

  /** A worker process of its own on the stack's task queue, started and polling. */
  const spawnWorker = async (stack: Stack, extraEnv: Record<string, string> = {}) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../src/bin/worker.ts')], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        DATABASE_URL: inject('databaseUrl'),
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        WORKER_METRICS_PORT: String(await freePort()),
        SERVICE_JWT_SECRET: randomBytes(32).toString('hex'),
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        AUDIT_SIGNING_KEY: inject('auditSigningKey'),
        LOG_LEVEL: 'info',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.push(child);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    await eventually(async () => (out.includes('worker running') ? true : undefined), 90_000, 'a worker to start');
    return child;
  };
  /** The stack's in-process worker stopped, one spawned worker doing its work, and a new account with its test key. */
  const onSpawnedWorker = async (stack: Stack) => {
    await stack.stopWorker();
    const first = await spawnWorker(stack);
    const acct = await stack.newAccount();
    return { first, acct, key: acct.test_api_key };
  };
  const kill = async (worker: ChildProcess) => {
    const exited = new Promise((r) => worker.once('exit', r));
    worker.kill('SIGKILL');
    await exited;
  };

  it('the next transition is answered by another worker, never with a 503', async () => {
    // The API of this stack; its in-process worker is stopped so the spawned ones do the work.
    const stack = await startStack(FAST_WEBHOOKS);
    try {
      const { first, acct, key } = await onSpawnedWorker(stack);
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      expect((await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key })).status).toBe(200); // now cached on `first`
      await spawnWorker(stack);
      await kill(first);
      const approved = await stack.http.post(`/api/v1/payments/${p.body.id}/approve`, { key });
      expect(approved.body.error?.code).toBeUndefined();
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe('pending_release');
      await expectLedgerBalanced(stack, acct.account_id, { [p.body.id]: ['deposit'] });
    } finally {
      await stack.stop();
    }
  }, 240_000);

  it('a worker SIGKILLed while a live payout is between its ledger entry and its file: the payout neither lost nor paid twice', async () => {
    const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payout-fault-')), 'outbox');
    const payoutEnv = {
      CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
      CUSTODY_ACCOUNT_IBAN: 'DE89370400440532013000',
      CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
      PAYOUT_OUTBOX_DIR: outbox,
      PAYOUT_BATCH_INTERVAL: '365 days',
    };
    const stack = await startStack({ ...FAST_WEBHOOKS, ...payoutEnv });
    try {
      await stack.stopWorker();
      // The workers open the sealed account numbers: they hold the API's key.
      const workerEnv = { ...payoutEnv, WEBHOOK_SECRET_KEY: stack.config.WEBHOOK_SECRET_KEY!.toString('base64') };
      const first = await spawnWorker(stack, workerEnv);
      const acct = await stack.newAccount();
      const key = acct.live_api_key;
      const post = async (route: string, body: object, status = 200) => {
        const res = await stack.http.post(route, { key, body });
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        return res.body;
      };
      const recipient = (await post('/api/v1/recipients', { email: 'shop@example.com', country: 'DE' }, 201)).id as string;
      await post(`/api/v1/recipients/${recipient}/verification`, { status: 'verified' });
      const bankAccount = { account_holder_name: 'Shop Owner', country: 'DE', currency: 'EUR', iban: 'DE89370400440532013000' };
      await post(`/api/v1/recipients/${recipient}/bank_accounts`, bankAccount, 201);
      const { recipient_email: _e, ...payment } = validPayment({ amount: 25, currency: 'EUR', recipient });
      const created = (await post('/api/v1/payments', payment, 201)) as { id: string; funding_reference: string };
      const paymentId = created.id;
      for (const action of ['deposit', 'approve', 'release']) await post(`/api/v1/payments/${paymentId}/${action}`, {});
      // Available once the platform's settlement of it is booked (docs/bank.md, "Live availability").
      const settlement = bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
      expect((await settlement.take(settlementFile(created.funding_reference, '25.00', 'EUR'), 'test')).outcome).toBe('taken');
      const payout = await post('/api/v1/payouts', { recipient, currency: 'EUR' }, 201);

      // The batch sends and records the payout, then cannot write its file (a file stands where the
      // outbox goes); its worker dies there, and another one finishes the batch.
      fs.writeFileSync(outbox, 'not a directory');
      const run = await stack.client.workflow.start(payoutBatchWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `payout-batch-fault-${randomUUID()}`,
      });
      const messageId = await eventually(async () => {
        const row = (await stack.db('payouts').where({ id: payout.id }).first()) as { message_id: string | null };
        return row.message_id ?? undefined;
      });
      await kill(first);
      fs.rmSync(outbox);
      await spawnWorker(stack, workerEnv);
      const batch = await run.result();
      // A euro payout to a German IBAN: the batch's SEPA file.
      expect(batch).toEqual({ messageId: expect.any(String), payouts: 1, written: true, files: [messageId] });
      expect(messageId).toBe(fileMessageId(batch.messageId, true));
      expect(fs.readdirSync(outbox)).toEqual([`${messageId}.xml`]);
      const xml = fs.readFileSync(path.join(outbox, `${messageId}.xml`), 'utf8');
      expect(xml.split(`<EndToEndId>${payout.end_to_end_id}</EndToEndId>`)).toHaveLength(2);
      // One batch activity, retried across the workers: its MsgId fixed once in the workflow's history.
      const events = (await run.fetchHistory()).events ?? [];
      expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);

      // One movement out of available, once: nothing lost, nothing moved twice.
      const postings = await stack
        .db('ledger_entries as e')
        .join('ledger_postings as p', 'p.entry_id', 'e.id')
        .where('e.recipient_id', recipient)
        .andWhere('e.type', 'like', 'payout%')
        .orderBy('p.amount_minor')
        .select('e.type', 'p.address', 'p.amount_minor');
      expect(
        postings.map(
          (r: { type: string; address: string; amount_minor: string }) => `${r.type} ${r.address.split(':')[2]} ${r.amount_minor}`,
        ),
      ).toEqual(['payout available -2500', 'payout in_transit 2500']);
      const payoutNow = await stack.http.get(`/api/v1/payouts/${payout.id}`, { key });
      expect(payoutNow.body.status).toBe('in_transit');
      // A later batch finds nothing to send: the payout is in one file only.
      const again = await stack.client.workflow.execute(payoutBatchWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `payout-batch-fault-${randomUUID()}`,
      });
      expect(again).toMatchObject({ payouts: 0, written: false });
      expect(fs.readdirSync(outbox)).toEqual([`${messageId}.xml`]);
    } finally {
      await stack.stop();
    }
  }, 240_000);

  it('milestone releases sent to a frozen worker that is then SIGKILLed: each milestone’s money moves exactly once', async () => {
    const stack = await startStack(FAST_WEBHOOKS);
    try {
      const { first, acct, key } = await onSpawnedWorker(stack);
      // Six milestones and a fee that rounds (docs/money.md): each release collects its share; all six, the whole fee.
      const amounts = [200, 500, 300, 0.01, 33.33, 66.66];
      const created = await stack.http.post('/api/v1/payments', {
        key,
        body: validPayment({ amount: 1100, platform_fee: 29.99, milestones: amounts.map((amount) => ({ amount })) }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id: string = created.body.id;
      const ms: string[] = created.body.milestones.map((m: { id: string }) => m.id);
      expect((await stack.http.post(`/api/v1/payments/${id}/deposit`, { key })).status).toBe(200);
      expect((await stack.http.post(`/api/v1/payments/${id}/approve`, { key })).body.status).toBe('pending_release'); // cached on `first`
      await spawnWorker(stack);

      /** A client that retries with its Idempotency-Key until it hears something other than 5xx. */
      const client = async (path: string) => {
        for (let attempt = 0; attempt < 240; attempt++) {
          const res = await stack.http.post(path, { key, headers: { 'Idempotency-Key': `release-${path}` } }).catch(() => undefined);
          if (res && res.status < 500) return res;
          await new Promise((r) => setTimeout(r, 250));
        }
        throw new Error(`${path}: never answered`);
      };
      // Frozen, `first` still holds the payment and may have taken its tasks; then it dies holding them.
      first.kill('SIGSTOP');
      const releases = Promise.all(ms.map((m) => client(`/api/v1/payments/${id}/milestones/${m}/release`)));
      await new Promise((r) => setTimeout(r, 1000));
      await kill(first);
      for (const [i, res] of (await releases).entries()) {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.milestones[i].status).toBe('released');
      }
      // The fault hit mid-flight: a workflow task of the payment's timed out, taken by `first` and never finished.
      const events = (await stack.client.workflow.getHandle(id).fetchHistory()).events ?? [];
      expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toBe(true);

      const payment = await eventually(async () => {
        const p = (await stack.http.get(`/api/v1/payments/${id}`, { key })).body;
        return p.status === 'released' ? p : undefined;
      });
      // floor(2999 × 110000 / 110000): the whole fee, collected across the six releases.
      expect([payment.amount_held, payment.amount_released, payment.amount_refunded, payment.fee_collected]).toEqual([0, 1100, 0, 29.99]);
      const history = (await stack.http.get(`/api/v1/payments/${id}/history`, { key })).body.data;
      expect(
        history
          .filter((h: { action: string }) => h.action === 'release')
          .map((h: { milestone_id: string }) => h.milestone_id)
          .sort(),
      ).toEqual([...ms].sort());
      // Exactly one deposit and one release per milestone, each release of its whole amount; their fees add up to the payment's.
      await expectLedgerBalanced(stack, acct.account_id, { [id]: [...ms.map(() => 'deposit'), ...ms.map(() => 'release')] });
      const ledger = (await stack.http.get(`/api/v1/payments/${id}/ledger`, { key })).body.data;
      const minor = (n: number) => BigInt(n.toFixed(2).replace('.', ''));
      let fees = 0n;
      for (const [i, m] of ms.entries()) {
        const mine = ledger.filter((e: { milestone_id: string }) => e.milestone_id === m);
        expect(mine.map((e: { type: string }) => e.type)).toEqual(['deposit', 'release']);
        const posting = (account: string) => mine[1].postings.find((p: { account: string }) => p.account === account)?.amount ?? 0;
        expect(minor(-posting('custody'))).toBe(minor(amounts[i]));
        expect(minor(posting('recipient_payable')) + minor(posting('platform_fees'))).toBe(minor(amounts[i]));
        expect(minor(posting('platform_fees'))).toBe(minor(payment.milestones[i].fee_collected));
        fees += minor(posting('platform_fees'));
      }
      expect(fees).toBe(2999n);
    } finally {
      await stack.stop();
    }
  }, 240_000);
});

describe('with PostgreSQL and the Temporal server the test may break', () => {
  let pg: OwnPostgres;
  let temporal: OwnTemporal;
  let stack: Stack;

  beforeAll(async () => {
    [pg, temporal] = await Promise.all([startOwnPostgres(), startOwnTemporal()]);
    const db = createDb(pg.url);
    await migrate(db);
    await db.destroy();
    stack = await startStack({ ...FAST_WEBHOOKS, DATABASE_URL: pg.url, TEMPORAL_ADDRESS: temporal.address });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop().catch(() => undefined);
    await temporal?.destroy();
    pg?.destroy();
  });

  it('through a PostgreSQL crash, a Temporal server SIGKILL and every worker down: nothing lost, nothing doubled, every client learns its true outcome', async () => {
    const receiver = await startReceiver();
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const http = stack.http;
    try {
      expect((await http.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url } })).status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push((await http.post('/api/v1/payments', { key, body: validPayment({ amount: i + 1, platform_fee: 0.33 }) })).body.id);
      }

      /** A client that retries with its Idempotency-Key until it hears something other than 5xx. */
      const client = async (id: string, action: string) => {
        const idem = `${action}-${id}`;
        for (let attempt = 0; attempt < 240; attempt++) {
          const res = await http
            .post(`/api/v1/payments/${id}/${action}`, { key, headers: { 'Idempotency-Key': idem } })
            .catch(() => undefined);
          if (res && res.status < 500) return res;
          await new Promise((r) => setTimeout(r, 250));
        }
        throw new Error(`${action} ${id}: never answered`);
      };

      // PostgreSQL crashes while the deposits are in flight, and comes back.
      const deposits = Promise.all(ids.map((id) => client(id, 'deposit')));
      await new Promise((r) => setTimeout(r, 30));
      pg.stop();
      await new Promise((r) => setTimeout(r, 1500));
      pg.start();
      for (const res of await deposits) expect([res.status, res.body.status]).toEqual([200, 'in_custody']);

      // The Temporal server is SIGKILLed while the approvals are in flight, and restarted on its file.
      const approvals = Promise.all(ids.map((id) => client(id, 'approve')));
      await new Promise((r) => setTimeout(r, 30));
      await temporal.kill();
      await new Promise((r) => setTimeout(r, 1000));
      await temporal.start();
      for (const res of await approvals) expect([res.status, res.body.status]).toEqual([200, 'pending_release']);

      // Every worker is down while the releases arrive; a worker comes back later.
      await stack.stopWorker();
      const releases = Promise.all(ids.map((id) => client(id, 'release')));
      await new Promise((r) => setTimeout(r, 2000));
      await stack.startWorker();
      for (const res of await releases) expect([res.status, res.body.status]).toEqual([200, 'released']);

      for (const id of ids) {
        const handle = stack.client.workflow.getHandle(id);
        const truth = await handle.query(getPaymentQuery);
        const history = await handle.query(getHistoryQuery);
        expect(history.map((h) => h.to)).toEqual(['pending_deposit', 'in_custody', 'pending_release', 'released']);
        // The read model equals the workflow, once its last projection ran.
        await eventually(
          async () => {
            const row = await stack.db('payments').where({ id }).first();
            return row.version === truth.version && row.status === truth.status ? true : undefined;
          },
          30_000,
          `read model of ${id}`,
        );
        expect((await stack.db('payment_events').where({ payment_id: id })).map((e) => e.to_status).sort()).toEqual(
          ['in_custody', 'pending_deposit', 'pending_release', 'released'].sort(),
        );
      }
      const expected = ids.flatMap((id) => ['created', 'deposited', 'approved', 'released'].map((e) => `${id} payment.${e}`)).sort();
      const seen = await eventually(
        async () => {
          const got = [...new Set(receiver.received.map((r) => `${r.body.payment_id} ${r.body.event}`))].sort();
          return got.length >= expected.length ? got : undefined;
        },
        90_000,
        'every webhook',
      );
      expect(seen).toEqual(expected);
      await expectCustodyTrailWhole(stack, pg.url, ids);
      // Every movement in the ledger exactly once, balanced, and equal to each workflow's own amounts.
      await expectLedgerBalanced(stack, acct.account_id, Object.fromEntries(ids.map((id) => [id, ['deposit', 'release']])));
    } finally {
      await receiver.close();
    }
  }, 300_000);
});

/**
 * After the faults, the custody trail holds every transition and every delivery attempt exactly
 * once (each written in the same transaction as its row), at gap-free positions, and audit:verify
 * rebuilds every signed head from it.
 */
async function expectCustodyTrailWhole(stack: Stack, databaseUrl: string, ids: string[]) {
  const db = stack.db;
  await eventually(
    async () => {
      await stack.client.schedule.getHandle(auditScheduleId(stack.taskQueue)).trigger();
      const waiting = await db('audit_leaves').whereNull('leaf_index').count({ n: '*' }).first();
      const total = await db('audit_leaves').count({ n: '*' }).first();
      const head = await db('audit_tree_heads').orderBy('id', 'desc').first();
      return Number(waiting!.n) === 0 && head && Number(head.tree_size) === Number(total!.n) ? true : undefined;
    },
    60_000,
    'a signed head over every leaf',
  );
  const positions = (await db('audit_leaves').select('leaf_index').orderBy('leaf_index')).map((r) => Number(r.leaf_index));
  expect(positions).toEqual(positions.map((_, i) => i));
  const transitions = await db('audit_leaves').whereIn('payment_id', ids).where({ kind: 'payment.transition' }).select('entry_key');
  const events = await db('payment_events').whereIn('payment_id', ids).select('payment_id', 'seq');
  expect(transitions.map((t) => t.entry_key).sort()).toEqual(events.map((e) => `transition:${e.payment_id}:${e.seq}`).sort());
  expect(transitions).toHaveLength(ids.length * 4);
  const attempts = await db('webhook_delivery_attempts as a')
    .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .whereIn('d.payment_id', ids)
    .select('a.delivery_id', 'a.attempt');
  const attemptLeaves = await db('audit_leaves').whereIn('payment_id', ids).where({ kind: 'webhook.attempt' }).select('entry_key');
  expect(attemptLeaves.map((l) => l.entry_key).sort()).toEqual(attempts.map((a) => `webhook_attempt:${a.delivery_id}:${a.attempt}`).sort());
  expect(attemptLeaves.length).toBeGreaterThanOrEqual(ids.length * 4);

  const publicKey = rawPublicKey(privateKeyFromSeed(Buffer.from(inject('auditSigningKey'), 'base64'))).toString('base64');
  const verified = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.resolve(__dirname, '../scripts/audit-verify.ts'), '--public-key', publicKey],
      {
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('close', (code) => resolve({ code, output }));
  });
  expect(verified.output).toContain(`ok: ${positions.length} leaves`);
  expect(verified.code).toBe(0);
}

/**
 * After a fault: `ledger:verify`'s check finds nothing for the account, and each payment has
 * exactly the entries its movements made (none missing, none doubled).
 */
async function expectLedgerBalanced(stack: Stack, accountId: string, entries: Record<string, string[]>): Promise<void> {
  for (const [paymentId, types] of Object.entries(entries)) {
    const got = await eventually(
      async () => {
        const rows = await stack.db('ledger_entries').where({ payment_id: paymentId }).orderBy('version');
        return rows.length >= types.length ? rows.map((r: { type: string }) => r.type) : undefined;
      },
      30_000,
      `ledger entries of ${paymentId}`,
    );
    expect(got).toEqual(types);
  }
  expect(await stack.services.ledger.verify(accountId)).toEqual([]);
}

async function projectionFailures(): Promise<number> {
  const metric = await registry.getSingleMetric('payment_projection_failures_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

/** The local activity a marker records: its type and its sequence number in the run. */
function localActivityOf(e: {
  markerRecordedEventAttributes?: { details?: Record<string, { payloads?: { data?: Uint8Array | null }[] | null }> | null } | null;
}) {
  const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  const parsed = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string; seq: number }) : undefined;
  return parsed && { type: parsed.activity_type, seq: parsed.seq };
}

/** The event id of the `nth` event of a type (1-based), or Infinity. */
function firstOf(events: { eventType?: number | null; eventId?: unknown }[], type: number, nth: number): number {
  const ids = events.filter((e) => e.eventType === type).map((e) => Number(e.eventId));
  return ids[nth - 1] ?? Infinity;
}
