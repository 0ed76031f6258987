/**
 * `recover` answering `queued: 0` says why (docs/webhooks.md, "Recover what a receiver missed"):
 * deliveries still pending are retried by their own series, never queued by recover, and the
 * answer counts them and says so.
 */
import { expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { configureWebhook } from './helpers/webhooks';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

// A failed first attempt leaves its delivery pending for the hour.
const stack = useStack({ env: { WEBHOOK_RETRY_INITIAL_INTERVAL: '1h', WEBHOOK_TIMEOUT: '2s' } });
const account = useAccount(stack);

it('queued 0 while deliveries are pending: the answer counts them and says their series retries them', async () => {
  const receiver = await startReceiver(() => 500);
  try {
    const key = account.test_api_key;
    const since = new Date(Date.now() - 1000).toISOString();
    const hook = await configureWebhook(stack, key, receiver.url, ['payment.created']);
    expect((await stack.http.post('/api/v1/payments', { key, body: validPayment() })).status).toBe(201);
    await eventually(async () => (receiver.received.length >= 1 ? true : undefined), 20_000, 'a first attempt');
    const answer = await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ success: true, queued: 0, delivery_ids: [], has_more: false, pending: 1 });
    expect(answer.body.message).toMatch(/no failed delivery to queue; 1 delivery since then is still pending, retried by its series/);
  } finally {
    await receiver.close();
  }
});
