/**
 * An endpoint has at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight (docs/webhooks.md,
 * "No tenant slows another"): an attempt that finds it full sends nothing, is logged "busy" with its
 * number, and Temporal's retry policy makes the next one shortly. Nothing is lost, and no queue of
 * our own holds anything.
 */
import http from 'node:http';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { releaseLease, takeLease } from '../src/webhooks/endpointLeases.repository';
import { eventually, useStack, validPayment } from './helpers/stack';
import { configureWebhook } from './helpers/webhooks';

const LIMIT = 2;
const stack = useStack({ env: { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(LIMIT), WEBHOOK_TIMEOUT: '5s' } });

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

interface Attempt {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
}

describe('WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', () => {
  it('holds at most that many attempts in flight; a full endpoint’s attempts are logged busy and retried until each delivery is sent once', async () => {
    const receiver = await slowReceiver(1500);
    try {
      const key = (await stack.newAccount()).test_api_key;
      const hook = await configureWebhook(stack, key, receiver.url, ['payment.created']);
      const created = await Promise.all(
        Array.from({ length: 6 }, () => stack.http.post('/api/v1/payments', { key, body: validPayment() })),
      );
      expect(created.map((c) => c.status)).toEqual(Array(6).fill(201));
      const rows = await eventually(
        async () => {
          const found = (await stack.db('webhook_deliveries').where({ webhook_id: hook.id })) as {
            id: string;
            payment_id: string;
            status: string;
            attempts: number;
          }[];
          return found.length === 6 && found.every((d) => d.status === 'succeeded') ? found : undefined;
        },
        90_000,
        'every delivery to succeed',
      );
      expect(receiver.seen.most).toBeLessThanOrEqual(LIMIT);
      expect(receiver.seen.received).toBe(6);
      const attempts = (await stack
        .db('webhook_delivery_attempts')
        .whereIn(
          'delivery_id',
          rows.map((r) => r.id),
        )
        .orderBy(['delivery_id', 'attempt'])) as Attempt[];
      // Two at a time: some deliveries were turned away at least once.
      expect(attempts.some((a) => a.error?.startsWith('endpoint busy: '))).toBe(true);
      for (const d of rows) {
        const mine = attempts.filter((a) => a.delivery_id === d.id);
        // Numbered 1, 2, … with no gap; every attempt but the last turned away, the last the one that was sent.
        expect(mine.map((a) => a.attempt)).toEqual(Array.from({ length: d.attempts }, (_, i) => i + 1));
        expect(mine.slice(0, -1).every((a) => a.status_code === null && a.error?.startsWith('endpoint busy: '))).toBe(true);
        expect(mine.at(-1)).toMatchObject({ status_code: 200, error: null });
        // The Temporal UI numbers the attempt as the log does: the first activity's attempt that delivered it.
        // In the delivery's own workflow (docs/webhooks.md, "One road"), its first activity named by it.
        const { events } = await stack.client.workflow.getHandle(d.id).fetchHistory();
        const scheduled = (events ?? []).find((e) => e.activityTaskScheduledEventAttributes?.activityId === d.id);
        const started = (events ?? []).find(
          (e) =>
            e.activityTaskStartedEventAttributes &&
            Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(scheduled?.eventId),
        );
        const completed = (events ?? []).some(
          (e) =>
            e.activityTaskCompletedEventAttributes &&
            Number(e.activityTaskCompletedEventAttributes.scheduledEventId) === Number(scheduled?.eventId),
        );
        expect(scheduled).toBeDefined();
        if (completed) expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(d.attempts);
      }
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

/** The deliveries holding a lease on the configuration's endpoint. */
async function leaseHolders(webhookId: string): Promise<string[]> {
  const { rows } = await stack.db.raw<{ rows: { in_flight: Record<string, string> }[] }>('SELECT in_flight FROM webhooks WHERE id = ?', [
    webhookId,
  ]);
  return Object.keys(rows[0].in_flight);
}

describe('takeLease and releaseLease (src/webhooks/endpointLeases.repository.ts)', () => {
  const lease = (webhookId: string, deliveryId: string, limit: number, leaseMs = 60_000) =>
    takeLease(stack.db, { deliveryId, webhookId, limit, leaseMs });
  const take = async (webhookId: string, deliveryId: string, limit: number, leaseMs = 60_000) =>
    (await lease(webhookId, deliveryId, limit, leaseMs)).taken;

  it('a freed lease is free at once; an expired one (its worker died) counts no more; a retried attempt keeps its own', async () => {
    const { webhookId, ids } = await deliveriesTo(4);
    const [first, second, third, dead] = ids;
    expect(await take(webhookId, first, 1)).toBe(true);
    expect(await take(webhookId, second, 1)).toBe(false);
    // The same delivery again (its activity retried) is not counted against itself.
    expect(await take(webhookId, first, 1)).toBe(true);
    await releaseLease(stack.db, first, webhookId);
    expect(await take(webhookId, second, 1)).toBe(true);
    await releaseLease(stack.db, second, webhookId);
    expect(await take(webhookId, dead, 1, 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(await take(webhookId, third, 1)).toBe(true);
    expect(await leaseHolders(webhookId)).toEqual([third]);
  });

  it('a full endpoint answers how long its oldest attempt in flight has run', async () => {
    const { webhookId, ids } = await deliveriesTo(3);
    const [oldest, younger, turnedAway] = ids;
    expect(await take(webhookId, oldest, 2)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(await take(webhookId, younger, 2)).toBe(true);
    const answer = await lease(webhookId, turnedAway, 2);
    expect(answer.taken).toBe(false);
    const ran = answer.taken ? 0 : answer.oldestInFlightMs;
    // The oldest lease's age, not the younger one's, and not its whole lease (60 s).
    expect(ran).toBeGreaterThanOrEqual(300);
    expect(ran).toBeLessThan(10_000);
  });

  it('of 20 attempts at once to one configuration with a limit of 3, exactly 3 take a lease', async () => {
    const { webhookId, ids } = await deliveriesTo(20);
    // Every connection of the pool open first, so that the calls run at once rather than one by one.
    await Promise.all(Array.from({ length: 10 }, () => stack.db.raw('SELECT pg_sleep(0.05)')));
    const taken = await Promise.all(ids.map((deliveryId) => take(webhookId, deliveryId, 3)));
    expect(taken.filter(Boolean)).toHaveLength(3);
    expect((await leaseHolders(webhookId)).sort()).toEqual(ids.filter((_, i) => taken[i]).sort());
  });
});
