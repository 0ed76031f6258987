/**
 * Test clocks: a test-mode payment's clock moves forward on request, and its due timers fire
 * through the workflow's own path (history entry, webhook). Live payments are not found there.
 */
import { describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const DAY = 24 * 3600;

describe('POST /api/v1/test_helpers/payments/:id/advance', () => {
  const stack = useStack();
  const acct = useAccount(stack);
  const advance = (id: string, seconds: unknown, key = acct.test_api_key) =>
    stack.http.post(`/api/v1/test_helpers/payments/${id}/advance`, { key, body: { seconds } });

  it('past the 7-day deposit deadline: cancelled by the deadline, with its history entry and webhook', async () => {
    const receiver = await startReceiver();
    try {
      await stack.http.post('/api/v1/webhooks/configure', {
        key: acct.test_api_key,
        body: { url: receiver.url, events: ['payment.cancelled'] },
      });
      const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      const early = await advance(p.body.id, 6 * DAY);
      expect([early.status, early.body.status]).toEqual([200, 'pending_deposit']);
      const due = await advance(p.body.id, DAY);
      expect([due.status, due.body.status]).toEqual([200, 'cancelled']);
      const history = (await stack.http.get(`/api/v1/payments/${p.body.id}/events`, { key: acct.test_api_key })).body.data;
      expect(history.at(-1)).toMatchObject({ action: 'deadline', from: 'pending_deposit', to: 'cancelled', actor: 'system' });
      const delivered = await eventually(
        async () => receiver.received.find((r) => r.body.payment_id === p.body.id),
        20_000,
        'payment.cancelled',
      );
      expect(delivered.body.data.status).toBe('cancelled');
    } finally {
      await receiver.close();
    }
  });

  it('past a 3-day auto-release: released by the timer', async () => {
    const key = acct.test_api_key;
    const p = await stack.http.post('/api/v1/payments', { key, body: validPayment({ auto_release_after_seconds: 3 * DAY }) });
    await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key });
    // Moving the clock before approval does not count towards the auto-release delay.
    expect((await advance(p.body.id, 2 * DAY)).body.status).toBe('in_custody');
    await stack.http.post(`/api/v1/payments/${p.body.id}/approve`, { key });
    expect((await advance(p.body.id, 2 * DAY)).body.status).toBe('pending_release');
    const released = await advance(p.body.id, DAY);
    expect(released.body.status).toBe('released');
    const history = (await stack.http.get(`/api/v1/payments/${p.body.id}/events`, { key })).body.data;
    expect(history.at(-1)).toMatchObject({ action: 'auto_release', to: 'released' });
  });

  it('a live payment is not found, bad seconds are a 400, and neither changes anything', async () => {
    const live = await stack.http.post('/api/v1/payments', { key: acct.live_api_key, body: validPayment() });
    const refused = await advance(live.body.id, 8 * DAY, acct.live_api_key);
    expect([refused.status, refused.body.error.code]).toEqual([404, 'not_found']);
    expect((await stack.http.get(`/api/v1/payments/${live.body.id}`, { key: acct.live_api_key })).body.status).toBe('pending_deposit');
    const test = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    for (const bad of [0, -5, 1.5, 'ten', null]) {
      const res = await advance(test.body.id, bad);
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
    }
    expect((await stack.http.get(`/api/v1/payments/${test.body.id}`, { key: acct.test_api_key })).body.status).toBe('pending_deposit');
  });
});
