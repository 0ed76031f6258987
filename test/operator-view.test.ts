/**
 * What an operator sees in Temporal (docs/operations.md): a finished payment's run closes even
 * while a receiver is failing (a delivery still retrying goes on in a workflow of its own, named by
 * its id, numbering its attempts as the log does), one update per action, summaries naming the step and the
 * receiver, `NextDeadline`, and the payments list the UI links lead to, without the checks' runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import {
  LivemodeKey,
  NextDeadlineKey,
  PAYMENT_COLUMNS,
  PAYMENTS_QUERY,
  PaymentAmountKey,
  PaymentCurrencyKey,
  PaymentStatusKey,
  SEARCH_ATTRIBUTE_TYPES,
  paymentsListUrl,
} from '../src/platform/searchAttributes.rules';
import { auditScheduleId } from '../src/audit/audit.service';
import { checkInWorker } from '../src/ledger/ledgerCheck.service';
import { ledgerScheduleId } from '../src/platform/worker/schedules';
import { startReceiver } from './helpers/receiver';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const EventType = proto.api.enums.v1.EventType;
const stack = useStack({
  env: {
    // Retries a second apart, so a failing receiver keeps the deliveries pending past the payment's end.
    WEBHOOK_RETRY_INITIAL_INTERVAL: '1s',
    WEBHOOK_RETRY_BACKOFF: '1',
    WEBHOOK_RETRY_MAX_INTERVAL: '1s',
    WEBHOOK_MAX_ATTEMPTS: '20',
    WEBHOOK_TIMEOUT: '2s',
  },
});
const acct = useAccount(stack);

const key = () => acct.test_api_key;
async function lifecycle(over: Record<string, unknown> = {}, actions = ['deposit', 'approve', 'release']) {
  const p = await stack.http.post('/api/v1/payments', { key: key(), body: validPayment(over) });
  expect(p.status).toBe(201);
  for (const action of actions) expect((await stack.http.post(`/api/v1/payments/${p.body.id}/${action}`, { key: key() })).status).toBe(200);
  return p.body.id as string;
}
const summaryOf = (e: proto.api.history.v1.IHistoryEvent) =>
  e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : undefined;

describe('a finished payment closes', () => {
  it('while its receiver fails: the run completes, and the deliveries go on to success with the same id and consecutive attempts', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 503));
    try {
      const hook = await stack.http.post('/api/v1/webhooks/configure', { key: key(), body: { url: receiver.url } });
      expect(hook.status).toBe(201);
      const id = await lifecycle();
      // Completed within seconds of the release, although no delivery has succeeded yet.
      const result = await stack.client.workflow.getHandle(id).result();
      expect(result.status).toBe('released');
      expect((await stack.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
      const pending = (await stack.db('webhook_deliveries').where({ payment_id: id })) as { id: string; status: string }[];
      expect(pending.length).toBe(4);
      expect(pending.filter((d) => d.status === 'succeeded')).toEqual([]);
      // Each delivery still retrying goes on in a workflow of its own, named by the delivery's id, on the webhooks task queue.
      for (const d of pending) {
        const run = await stack.client.workflow.getHandle(d.id).describe();
        expect([run.status.name, run.taskQueue]).toEqual(['RUNNING', `${stack.taskQueue}-webhooks`]);
      }

      healthy = true;
      await eventually(
        async () => {
          const rows = (await stack.db('webhook_deliveries').where({ payment_id: id })) as { status: string }[];
          return rows.every((r) => r.status === 'succeeded') ? true : undefined;
        },
        30_000,
        'every delivery to succeed',
      );
      for (const d of pending) {
        const attempts = (await stack.db('webhook_delivery_attempts').where({ delivery_id: d.id }).orderBy('attempt')) as {
          attempt: number;
          status_code: number | null;
        }[];
        // The attempt count carried over: 1, 2, …, n with no gap or repeat, the last one the success.
        expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
        expect(attempts.at(-1)?.status_code).toBe(200);
        const sent = receiver.received.filter((r) => r.headers['webhook-id'] === d.id);
        expect(sent.length).toBe(attempts.length);
        expect(new Set(sent.map((r) => r.raw.toString('utf8'))).size).toBe(1);
      }
    } finally {
      await receiver.close();
    }
  });

  it('with a healthy receiver: its publications start one workflow per delivery, none a child of its run, and every delivery succeeds', async () => {
    const receiver = await startReceiver();
    try {
      const own = await stack.newAccount();
      await stack.http.post('/api/v1/webhooks/configure', { key: own.test_api_key, body: { url: receiver.url } });
      const p = await stack.http.post('/api/v1/payments', { key: own.test_api_key, body: validPayment() });
      for (const action of ['deposit', 'refund'])
        await stack.http.post(`/api/v1/payments/${p.body.id}/${action}`, { key: own.test_api_key });
      await stack.client.workflow.getHandle(p.body.id).result();
      await eventually(async () => {
        const deliveries = (await stack.db('webhook_deliveries').where({ payment_id: p.body.id })) as { status: string }[];
        return deliveries.map((d) => d.status).join() === 'succeeded,succeeded,succeeded' ? true : undefined;
      });
      const events = (await stack.client.workflow.getHandle(p.body.id).fetchHistory()).events ?? [];
      expect(events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? [])).toEqual([]);
      const deliveries = (await stack.db('webhook_deliveries').where({ payment_id: p.body.id })) as { id: string }[];
      const hosts = await Promise.all(deliveries.map(async (d) => stack.client.workflow.getHandle(d.id).describe()));
      expect(hosts.map((h) => [h.type, h.taskQueue, h.parentExecution ?? null])).toEqual(
        deliveries.map(() => ['webhookDeliveryWorkflow', `${stack.taskQueue}-webhooks`, null]),
      );
    } finally {
      await receiver.close();
    }
  });
});

describe("the history reads as the payment's story", () => {
  it('one update per action, and activities named by step, money moved and receiver', async () => {
    // This receiver fails the first attempt once: the delivery's workflow shows attempt 2 as the log does.
    const receiver = await startReceiver((n) => (n === 1 ? 503 : 200));
    try {
      const own = await stack.newAccount();
      const hook = await stack.http.post('/api/v1/webhooks/configure', {
        key: own.test_api_key,
        body: { url: `${receiver.url}/custody`, events: ['payment.deposited'] },
      });
      const p = await stack.http.post('/api/v1/payments', { key: own.test_api_key, body: validPayment() });
      expect((await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: own.test_api_key })).status).toBe(200);
      const delivered = await eventually(async () => {
        const d = await stack.db('webhook_deliveries').where({ payment_id: p.body.id, status: 'succeeded' }).first();
        return d as { id: string } | undefined;
      });
      for (const [action, body] of [['dispute'], ['resolve', { resolution: 'refund' }]] as const) {
        expect((await stack.http.post(`/api/v1/payments/${p.body.id}/${action}`, { key: own.test_api_key, body })).status).toBe(200);
      }
      await stack.client.workflow.getHandle(p.body.id).result();
      const events = (await stack.client.workflow.getHandle(p.body.id).fetchHistory()).events ?? [];
      const updates = events
        .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
        .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);
      // The create is the first update (update-with-start, answered once its creation is committed).
      expect(updates).toEqual(['created', 'deposit', 'dispute', 'resolve']);
      // The creation's publication is a local activity: its marker carries the summary.
      const summaries = events
        .filter(
          (e) =>
            e.activityTaskScheduledEventAttributes?.activityType?.name === 'publishTransition' ||
            e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
        )
        .map(summaryOf);
      expect(summaries).toEqual([
        'publish create → pending_deposit (v1)',
        'publish deposit → in_custody (v2) — deposit: 125.50 held',
        'publish dispute → disputed (v3)',
        'publish resolve → refunded (v4) — refund: 125.50 refunded',
      ]);
      // The delivery, its own workflow (named by its id, started by the deposit's publication) on the webhooks task
      // queue, its activity's summary naming its event and configuration (its URL may carry a token).
      const series = (await stack.client.workflow.getHandle(delivered.id).fetchHistory()).events ?? [];
      const scheduled = series.filter((e) => e.activityTaskScheduledEventAttributes?.activityId === delivered.id);
      expect(
        scheduled.map((e) => [
          e.activityTaskScheduledEventAttributes?.activityType?.name,
          e.activityTaskScheduledEventAttributes?.taskQueue?.name,
        ]),
      ).toEqual([['deliverWebhook', `${stack.taskQueue}-webhooks`]]);
      expect(summaryOf(scheduled[0])).toBe(`deliver payment.deposited → ${hook.body.webhook.id} · delivery log attempts 1–20`);
      // One activity under the retry policy; the attempt that delivered is the log's attempt 2 and the UI's.
      const started = series.flatMap((e) =>
        e.activityTaskStartedEventAttributes &&
        e.activityTaskStartedEventAttributes.scheduledEventId?.toString() === scheduled[0].eventId?.toString()
          ? [e.activityTaskStartedEventAttributes.attempt]
          : [],
      );
      expect(started).toEqual([2]);
      const attempts = await stack.db('webhook_delivery_attempts').where({ delivery_id: delivered.id }).orderBy('attempt');
      expect(attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 503],
        [2, 200],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('a transition’s publication calls no receiver: each delivery is a workflow of its own on the webhooks task queue', async () => {
    const receiver = await startReceiver();
    try {
      const own = await stack.newAccount();
      expect((await stack.http.post('/api/v1/webhooks/configure', { key: own.test_api_key, body: { url: receiver.url } })).status).toBe(
        201,
      );
      const p = await stack.http.post('/api/v1/payments', { key: own.test_api_key, body: validPayment() });
      for (const action of ['deposit', 'approve', 'release']) {
        expect((await stack.http.post(`/api/v1/payments/${p.body.id}/${action}`, { key: own.test_api_key })).status).toBe(200);
      }
      await stack.client.workflow.getHandle(p.body.id).result();
      await eventually(async () => {
        const rows = (await stack.db('webhook_deliveries').where({ payment_id: p.body.id, status: 'succeeded' })) as unknown[];
        return rows.length === 4 ? true : undefined;
      });
      const events = (await stack.client.workflow.getHandle(p.body.id).fetchHistory()).events ?? [];
      const activities = events
        .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map((e) => [e.activityTaskScheduledEventAttributes?.activityType?.name, e.activityTaskScheduledEventAttributes?.taskQueue?.name]);
      // The payment's run publishes (the creation in a local activity, each later step in an activity);
      // the publications start the deliveries' workflows on the webhooks task queue, which alone runs their attempts.
      expect(activities).toEqual(Array.from({ length: 3 }, () => ['publishTransition', stack.taskQueue]));
      expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
      expect(events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? [])).toEqual([]);
      const deliveries = (await stack.db('webhook_deliveries').where({ payment_id: p.body.id }).orderBy('created_at')) as {
        event: string;
        status: string;
        attempts: number;
      }[];
      // Publications of consecutive transitions may overlap: the order of arrival is not promised.
      expect(deliveries.map((d) => [d.event, d.status, d.attempts]).sort()).toEqual([
        ['payment.approved', 'succeeded', 1],
        ['payment.created', 'succeeded', 1],
        ['payment.deposited', 'succeeded', 1],
        ['payment.released', 'succeeded', 1],
      ]);
      expect(receiver.received.map((r) => r.body.event).sort()).toEqual([
        'payment.approved',
        'payment.created',
        'payment.deposited',
        'payment.released',
      ]);
    } finally {
      await receiver.close();
    }
  });
});

describe('NextDeadline', () => {
  it('is the deposit deadline, then absent in custody, then the auto-release time; a list query finds it', async () => {
    const own = await stack.newAccount();
    const p = await stack.http.post('/api/v1/payments', {
      key: own.test_api_key,
      body: validPayment({ deposit_deadline_seconds: 3600, auto_release_after_seconds: 7200 }),
    });
    const handle = stack.client.workflow.getHandle(p.body.id);
    const deadline = async () => (await handle.describe()).typedSearchAttributes.get(NextDeadlineKey);
    expect((await deadline())?.toISOString()).toBe(p.body.deposit_deadline);
    await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: own.test_api_key });
    expect(await deadline()).toBeUndefined();
    const approved = await stack.http.post(`/api/v1/payments/${p.body.id}/approve`, { key: own.test_api_key });
    const due = (await deadline())!;
    expect(Math.abs(due.getTime() - (Date.parse(approved.body.updated_at) + 7200_000))).toBeLessThan(1000);
    // "Auto-releases in the next 24 hours", as docs/operations.md writes it.
    const query = `NextDeadline < "${new Date(Date.now() + 24 * 3600_000).toISOString()}" AND AccountId = "${own.account_id}"`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const w of stack.client.workflow.list({ query })) ids.push(w.workflowId);
      return ids.length ? ids : undefined;
    });
    expect(found).toEqual([p.body.id]);
  });
});

describe("the UI links' list of payments", () => {
  it('holds the payments and none of the runs of the checks (their schedules, and a check asked for by hand)', async () => {
    const id = await lifecycle({}, ['deposit']);
    // A run of each schedule, now, and a ledger check as `npm run ledger:verify` asks for one.
    await stack.client.schedule.getHandle(ledgerScheduleId(stack.taskQueue)).trigger();
    await stack.client.schedule.getHandle(auditScheduleId(stack.taskQueue)).trigger();
    await checkInWorker(stack.client, { taskQueue: stack.taskQueue });
    const list = async (query: string) => {
      const runs: { id: string; type: string }[] = [];
      for await (const w of stack.client.workflow.list({ query: `${query} AND TaskQueue = "${stack.taskQueue}"` }))
        runs.push({ id: w.workflowId, type: w.type });
      return runs;
    };
    const checks = await eventually(async () => {
      const types = new Set((await list('ExecutionStatus != "Running" OR ExecutionStatus = "Running"')).map((r) => r.type));
      return types.has('ledgerVerifyWorkflow') && types.has('auditTreeHeadWorkflow') ? types : undefined;
    });
    expect(checks.has('paymentWorkflow')).toBe(true);
    const payments = await eventually(async () => {
      const runs = await list(PAYMENTS_QUERY);
      return runs.some((r) => r.id === id) ? runs : undefined;
    });
    expect(new Set(payments.map((r) => r.type))).toEqual(new Set(['paymentWorkflow']));
    // The link carries that query.
    expect(decodeURIComponent(new URL(paymentsListUrl('http://127.0.0.1:8233', 'default')).searchParams.get('query')!)).toBe(
      PAYMENTS_QUERY,
    );
  });
});

describe('the payments list per mode, with the columns of docs/operations.md', () => {
  it("each mode's link lists that mode's payments alone; each documented column is a registered search attribute, set and kept current", async () => {
    const own = await stack.newAccount();
    const ids: Record<'test' | 'live', string> = { test: '', live: '' };
    for (const mode of ['test', 'live'] as const) {
      const key = mode === 'test' ? own.test_api_key : own.live_api_key;
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: 125.5, currency: 'EUR' }) });
      expect(p.status, JSON.stringify(p.body)).toBe(201);
      expect((await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key })).status).toBe(200);
      ids[mode] = p.body.id as string;
    }
    // Registered in the namespace, with the types the service writes them with.
    const registered = await stack.client.connection.operatorService.listSearchAttributes({ namespace: stack.config.TEMPORAL_NAMESPACE });
    for (const name of PAYMENT_COLUMNS) {
      expect(registered.customAttributes?.[name], name).toBeDefined();
      expect(SEARCH_ATTRIBUTE_TYPES[name], name).toBeDefined();
    }
    // Each mode's link: its query, as the UI runs it, finds that mode's in_custody payment and not the other's.
    for (const [mode, livemode] of [
      ['test', false],
      ['live', true],
    ] as const) {
      const link = new URL(paymentsListUrl('http://127.0.0.1:8233', 'default', livemode));
      const query = `${link.searchParams.get('query')!} AND AccountId="${own.account_id}" AND PaymentStatus="in_custody"`;
      const found = await eventually(async () => {
        const runs: string[] = [];
        for await (const w of stack.client.workflow.list({ query })) runs.push(w.workflowId);
        return runs.length ? runs : undefined;
      });
      expect(found, query).toEqual([ids[mode]]);
      // The columns' values: the status after the transition, the amount, the currency, the mode.
      const attrs = (await stack.client.workflow.getHandle(ids[mode]).describe()).typedSearchAttributes;
      expect([attrs.get(PaymentStatusKey), attrs.get(PaymentAmountKey), attrs.get(PaymentCurrencyKey), attrs.get(LivemodeKey)]).toEqual([
        'in_custody',
        125.5,
        'EUR',
        livemode,
      ]);
    }
    // The page gives both links for npm start's UI, and names every column.
    const page = fs.readFileSync(path.join(__dirname, '..', 'docs', 'operations.md'), 'utf8');
    for (const livemode of [false, true]) expect(page).toContain(paymentsListUrl('http://127.0.0.1:8233', 'default', livemode));
    for (const name of PAYMENT_COLUMNS) expect(page).toContain(`\`${name}\``);
  });
});
