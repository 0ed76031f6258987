/**
 * An endpoint has at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight (docs/webhooks.md,
 * "No tenant slows another"): the others wait a moment in their attempt, then in their workflows (from
 * their publication when the endpoint was already full), send nothing meanwhile, and are then
 * delivered by the same attempt, numbered as if they had never waited.
 */
import http from 'node:http';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { joinFullEndpointLines, releaseLease, takeLease } from '../src/webhooks/endpointLeases.repository';
import { ENDPOINT_TURN_SIGNAL, ENDPOINT_WAKE_MS } from '../src/webhooks/deliverySeries.rules';
import { eventually, useStack, validPayment } from './helpers/stack';
import { configureWebhook } from './helpers/webhooks';

const LIMIT = 2;
// A moment's wait inside the attempt (off by default) for the burst below; the first test holds with or without it.
const stack = useStack({ env: { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(LIMIT), WEBHOOK_TIMEOUT: '5s', WEBHOOK_ENDPOINT_WAIT: '2s' } });

/** A receiver that answers 200 after `holdMs`, counting the requests it holds at once. */
async function slowReceiver(holdMs: number) {
  const seen = { inFlight: 0, most: 0, received: 0 };
  const server = http.createServer((req, res) => {
    seen.inFlight++;
    seen.most = Math.max(seen.most, seen.inFlight);
    req.resume();
    setTimeout(() => {
      seen.inFlight--;
      seen.received++;
      res.end('{"received":true}');
    }, holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { seen, url: `http://127.0.0.1:${port}/hook`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A new account whose one configuration (payment.created) points at `url`, and `count` payments it created at once. */
async function burstTo(url: string, count: number) {
  const key = (await stack.newAccount()).test_api_key;
  const hook = await stack.http.post('/api/v1/webhooks/configure', { key, body: { url, events: ['payment.created'] } });
  expect(hook.status).toBe(201);
  const created = await Promise.all(
    Array.from({ length: count }, () => stack.http.post('/api/v1/payments', { key, body: validPayment() })),
  );
  expect(created.map((c) => c.status)).toEqual(Array(count).fill(201));
  return { hook, created };
}

describe('WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', () => {
  it('holds at most that many attempts in flight to one endpoint; the rest wait and are each delivered by their first attempt', async () => {
    const receiver = await slowReceiver(1500);
    try {
      const { hook } = await burstTo(receiver.url, 6);
      const rows = await eventually(
        async () => {
          const found = (await stack.db('webhook_deliveries').where({ webhook_id: hook.body.webhook.id })) as {
            status: string;
            attempts: number;
          }[];
          return found.length === 6 && found.every((d) => d.status === 'succeeded') ? found : undefined;
        },
        60_000,
        'every delivery to succeed',
      );
      expect(receiver.seen.most).toBeLessThanOrEqual(LIMIT);
      expect(receiver.seen.received).toBe(6);
      // A wait for a turn is no attempt: each delivery's log holds one.
      expect(rows.map((d) => d.attempts)).toEqual(Array(6).fill(1));
    } finally {
      await receiver.close();
    }
  });

  it("with WEBHOOK_ENDPOINT_WAIT, a burst of twice the limit waits inside its attempts: one activity per delivery, none back to its payment's run", async () => {
    const receiver = await slowReceiver(400);
    try {
      const { hook, created } = await burstTo(receiver.url, 2 * LIMIT);
      await eventually(
        async () => {
          const found = (await stack
            .db('webhook_deliveries')
            .where({ webhook_id: hook.body.webhook.id, status: 'succeeded' })) as unknown[];
          return found.length === 2 * LIMIT || undefined;
        },
        60_000,
        'every delivery to succeed',
      );
      expect(receiver.seen.most).toBeLessThanOrEqual(LIMIT);
      expect(receiver.seen.received).toBe(2 * LIMIT);
      // A delivery sent back to its run by a full endpoint would show a second deliverWebhook activity there.
      const scheduled = await Promise.all(
        created.map(async (c) => {
          const { events } = await stack.client.workflow.getHandle(c.body.id as string).fetchHistory();
          return (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook').length;
        }),
      );
      expect(scheduled).toEqual(Array(2 * LIMIT).fill(1));
    } finally {
      await receiver.close();
    }
  });
});

describe('a delivery planned while its endpoint is full', () => {
  it("joins the endpoint's line from its publication and sends nothing until its turn: its first activity is the attempt that delivers it", async () => {
    const receiver = await slowReceiver(0);
    try {
      const key = (await stack.newAccount()).test_api_key;
      const hook = await configureWebhook(stack, key, receiver.url, ['payment.created']);
      // The endpoint full: LIMIT attempts of other deliveries in flight for a minute.
      const holders = Array.from({ length: LIMIT }, () => `dlv_${ulid()}`);
      await stack.db('webhook_deliveries').insert(holders.map((id) => ({ id, webhook_id: hook.id, event: 'payment.created', body: '{}' })));
      for (const id of holders)
        expect(await takeLease(stack.db, { deliveryId: id, webhookId: hook.id, limit: LIMIT, leaseMs: 60_000 })).toBe(true);

      const created = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      expect(created.status).toBe(201);
      const paymentId = created.body.id as string;
      const waiting = await eventually(
        async () => {
          const row = (await stack.db('webhook_deliveries').where({ webhook_id: hook.id, payment_id: paymentId }).first()) as
            { id: string; waiting_run: string | null; attempts: number } | undefined;
          return row?.waiting_run ? row : undefined;
        },
        20_000,
        'the delivery to join the line',
      );
      expect(waiting).toMatchObject({ waiting_run: paymentId, attempts: 0 });
      const deliveries = async () => {
        const { events } = await stack.client.workflow.getHandle(paymentId).fetchHistory();
        return (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook').length;
      };
      // Longer than WEBHOOK_ENDPOINT_WAIT, the moment an attempt would wait before going back to its run.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await deliveries()).toBe(0);
      expect(receiver.seen.received).toBe(0);

      // A lease freed: the line's first waiter is this delivery, woken as an ending attempt wakes it.
      const next = await releaseLease(stack.db, holders[0], hook.id, ENDPOINT_WAKE_MS);
      expect(next).toEqual({ deliveryId: waiting.id, run: paymentId });
      await stack.client.workflow.getHandle(paymentId).signal(ENDPOINT_TURN_SIGNAL, { deliveryId: waiting.id });
      const delivered = await eventually(
        async () => {
          const row = (await stack.db('webhook_deliveries').where({ id: waiting.id }).first()) as { status: string; attempts: number };
          return row.status === 'succeeded' ? row : undefined;
        },
        20_000,
        'the delivery to succeed',
      );
      expect(delivered.attempts).toBe(1);
      expect(receiver.seen.received).toBe(1);
      expect(await deliveries()).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});

/** A configuration of a new account and `count` deliveries to it, none yet attempted. */
async function deliveriesTo(count: number) {
  const key = (await stack.newAccount()).test_api_key;
  const hook = await configureWebhook(stack, key, 'http://127.0.0.1:9/hook');
  const ids = Array.from({ length: count }, () => `dlv_${ulid()}`);
  await stack.db('webhook_deliveries').insert(ids.map((id) => ({ id, webhook_id: hook.id, event: 'payment.created', body: '{}' })));
  return { webhookId: hook.id, ids };
}

describe('takeLease and releaseLease (src/webhooks/endpointLeases.repository.ts)', () => {
  const take = (webhookId: string, deliveryId: string, limit: number) =>
    takeLease(stack.db, { deliveryId, webhookId, limit, leaseMs: 60_000, run: `run-${deliveryId}` });
  const release = (webhookId: string, deliveryId: string) => releaseLease(stack.db, deliveryId, webhookId, ENDPOINT_WAKE_MS);

  it('a freed lease is free at once: an attempt already running takes it while the woken waiter, full again, keeps its place and is woken first next time', async () => {
    const { webhookId, ids } = await deliveriesTo(3);
    const [first, waiter, runningAttempt] = ids;
    expect(await take(webhookId, first, 1)).toBe(true);
    expect(await take(webhookId, waiter, 1)).toBe(false);
    expect(await release(webhookId, first)).toEqual({ deliveryId: waiter, run: `run-${waiter}` });
    // The endpoint is not held idle for the waiter while its run is being woken.
    expect(await take(webhookId, runningAttempt, 1)).toBe(true);
    expect(await take(webhookId, waiter, 1)).toBe(false);
    expect(await release(webhookId, runningAttempt)).toEqual({ deliveryId: waiter, run: `run-${waiter}` });
    expect(await take(webhookId, waiter, 1)).toBe(true);
    const rows = (await stack.db('webhook_deliveries').whereIn('id', ids)) as { waiting_since: Date | null }[];
    expect(rows.filter((r) => r.waiting_since !== null)).toEqual([]);
  });

  it('releases in quick succession wake the waiters in their order in line, each once', async () => {
    const { webhookId, ids } = await deliveriesTo(5);
    const [a, b, ...waiters] = ids;
    expect(await take(webhookId, a, 2)).toBe(true);
    expect(await take(webhookId, b, 2)).toBe(true);
    for (const w of waiters) expect(await take(webhookId, w, 2)).toBe(false);
    const woken = [await release(webhookId, a), await release(webhookId, b)];
    expect(woken.map((w) => w?.deliveryId)).toEqual(waiters.slice(0, 2));
    // A waiter whose run cannot be woken leaves the line, and the one behind it is woken.
    expect(await release(webhookId, waiters[0])).toEqual({
      deliveryId: waiters[2],
      run: `run-${waiters[2]}`,
    });
    expect(await release(webhookId, waiters[1])).toBeUndefined();
  });

  it('joinFullEndpointLines: a delivery joins the line only while the endpoint is full, once, and is woken before a later waiter', async () => {
    const { webhookId, ids } = await deliveriesTo(4);
    const [held, planned, again, later] = ids;
    const join = (deliveryId: string) => joinFullEndpointLines(stack.db, [{ deliveryId, webhookId }], 1, `run-${deliveryId}`);
    // Room at the endpoint: the delivery's own attempt takes the lease; nothing joins the line.
    expect([...(await join(planned))]).toEqual([]);
    expect(await take(webhookId, held, 1)).toBe(true);
    expect([...(await join(planned))]).toEqual([planned]);
    const since = ((await stack.db('webhook_deliveries').where({ id: planned }).first()) as { waiting_since: Date }).waiting_since;
    // A retried publication keeps the place the first took.
    expect([...(await join(planned))]).toEqual([planned]);
    expect(((await stack.db('webhook_deliveries').where({ id: planned }).first()) as { waiting_since: Date }).waiting_since).toEqual(since);
    expect(await take(webhookId, later, 1)).toBe(false);
    expect(await release(webhookId, held)).toEqual({ deliveryId: planned, run: `run-${planned}` });
    // Several in one call, in order: each joins while the endpoint stays full.
    expect(await take(webhookId, again, 1)).toBe(true);
    const both = await joinFullEndpointLines(
      stack.db,
      [
        { deliveryId: planned, webhookId },
        { deliveryId: later, webhookId },
      ],
      1,
      'run-x',
    );
    expect([...both]).toEqual([planned, later]);
  });

  it('of 20 attempts at once to one configuration with a limit of 3, exactly 3 take a lease and the others join the line', async () => {
    const { webhookId, ids } = await deliveriesTo(20);
    // Every connection of the pool open first, so that the calls run at once rather than one by one.
    await Promise.all(Array.from({ length: 10 }, () => stack.db.raw('SELECT pg_sleep(0.05)')));
    const taken = await Promise.all(ids.map((deliveryId) => take(webhookId, deliveryId, 3)));
    expect(taken.filter(Boolean)).toHaveLength(3);
    const rows = (await stack.db('webhook_deliveries').where({ webhook_id: webhookId })) as {
      id: string;
      in_flight_until: Date | null;
      waiting_run: string | null;
    }[];
    const leased = rows.filter((r) => r.in_flight_until !== null).map((r) => r.id);
    expect(leased.sort()).toEqual(ids.filter((_, i) => taken[i]).sort());
    expect(rows.filter((r) => r.waiting_run === `run-${r.id}`)).toHaveLength(17);
  });
});
