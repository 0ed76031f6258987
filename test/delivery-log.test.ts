/**
 * The delivery log an operator recovers from: paginated, filtered by status, each attempt with the
 * first 1 KB of the answer, a pending delivery's next attempt time; a 410 disables the endpoint.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { accountWithWebhook, FAST_WEBHOOK_RETRIES, untilDisabled } from './helpers/webhooks';
import { eventually, startStack, useStack, validPayment } from './helpers/stack';

const stack = useStack({ env: { ...FAST_WEBHOOK_RETRIES, WEBHOOK_MAX_ATTEMPTS: '3' } });

describe('GET /webhooks/:id/deliveries', () => {
  it('pages both ways, filters by status, and keeps no answer of a loopback receiver', async () => {
    const receiver = await startReceiver((_n, r) => (r.body?.event === 'payment.deposited' ? 500 : 200));
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key });
      await stack.http.post(`/api/v1/payments/${p.body.id}/approve`, { key });
      const log = (q = '') => stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries${q}`, { key });
      const failed = await eventually(
        async () => {
          const res = await log('?status=failed');
          return res.body.data.length === 1 ? res.body.data[0] : undefined;
        },
        20_000,
        'the deposited delivery to fail three times',
      );
      expect(failed.event).toBe('payment.deposited');
      expect(failed.next_attempt_at).toBeNull();
      // A loopback receiver's answer is never kept (docs/security.md); the 1 KB cut of other answers is
      // test/unit/response-excerpt.test.ts's.
      expect(failed.attempts.map((a: { status_code: number; response_excerpt: string }) => [a.status_code, a.response_excerpt])).toEqual([
        [500, null],
        [500, null],
        [500, null],
      ]);
      const all = await eventually(
        async () => {
          const res = await log();
          return res.body.data.length === 3 ? res.body : undefined;
        },
        20_000,
        'three deliveries',
      );
      expect(all.has_more).toBe(false);
      const first = (await log('?limit=1')).body;
      expect(first.has_more).toBe(true);
      const second = (await log(`?limit=1&starting_after=${first.data[0].id}`)).body;
      expect(second.data[0].id).toBe(all.data[1].id);
      const back = (await log(`?limit=1&ending_before=${second.data[0].id}`)).body;
      expect(back.data[0].id).toBe(first.data[0].id);
      expect((await log('?status=nope')).status).toBe(400);
      expect((await log('?colour=red')).status).toBe(400);
    } finally {
      await receiver.close();
    }
  });
});

describe('a pending delivery in the log', () => {
  it('keeps nothing of a loopback receiver’s long answer and shows when the retry policy will try next', async () => {
    // A retry an hour away: the delivery stays pending after its first attempt.
    const slow = await startStack({ WEBHOOK_RETRY_INITIAL_INTERVAL: '1h', WEBHOOK_MAX_ATTEMPTS: '3' });
    const long = 'x'.repeat(700) + 'é'.repeat(700); // 2,100 bytes of UTF-8
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(long));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const acct = await slow.newAccount();
      const key = acct.test_api_key;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const hook = (await slow.http.post('/api/v1/webhooks/configure', { key, body: { url, events: ['payment.created'] } })).body.webhook;
      await slow.http.post('/api/v1/payments', { key, body: validPayment() });
      const pending = await eventually(
        async () => {
          const res = await slow.http.get(`/api/v1/webhooks/${hook.id}/deliveries?status=pending`, { key });
          return res.body.data[0]?.attempts.length === 1 ? res.body.data[0] : undefined;
        },
        20_000,
        'the first failed attempt',
      );
      const [attempt] = pending.attempts;
      expect(attempt.status_code).toBe(500);
      // Not even its first 1 KB: the receiver is on loopback (docs/security.md; the cut itself is
      // test/unit/response-excerpt.test.ts's).
      expect(attempt.response_excerpt).toBeNull();
      expect(Date.parse(pending.next_attempt_at) - Date.parse(attempt.at)).toBe(3600_000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await slow.stop();
    }
  });
});

describe('endpoint health', () => {
  it('a 410 disables the configuration at once, with its reason; PATCH active: true turns it back on', async () => {
    const receiver = await startReceiver((_n, r) => (r.body?.event === 'payment.created' ? 410 : 200));
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      const disabled = await untilDisabled(stack, key);
      expect(disabled.disabled_reason).toContain('410');
      expect(receiver.received).toHaveLength(1); // no retry after a 410
      const before = receiver.received.length;
      const q = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      await stack.http.post(`/api/v1/payments/${q.body.id}/deposit`, { key });
      const on = await stack.http.patch(`/api/v1/webhooks/${hook.id}`, { key, body: { active: true } });
      expect([on.status, on.body.active, on.body.disabled_reason]).toEqual([200, true, null]);
      expect(receiver.received.length).toBe(before); // nothing was sent while it was off
      await stack.http.post(`/api/v1/payments/${q.body.id}/approve`, { key });
      await eventually(
        async () => (receiver.received.some((r) => r.body.event === 'payment.approved') ? true : undefined),
        20_000,
        'deliveries to resume',
      );
      expect((await stack.http.patch(`/api/v1/webhooks/${hook.id}`, { key, body: { active: 'yes' } })).status).toBe(400);
    } finally {
      await receiver.close();
    }
  });
});
