/**
 * Standard Webhooks beside the spec's signature: the reference implementation (`standardwebhooks`)
 * verifies real deliveries; rotation overlaps; envelopes carry the payment's sequence.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, verifyWebhookSignature } from '../src';
import { startReceiver, type Received } from './helpers/receiver';
import { FAST_WEBHOOK_RETRIES } from './helpers/webhooks';
import { eventually, useStack, validPayment, type TestAccount } from './helpers/stack';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });

const headersOf = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
/** The reference implementation: throws on a bad signature or a stale timestamp. */
const standardVerifies = (secret: string, r: Received) => {
  try {
    new Webhook(secret).verify(r.raw.toString('utf8'), headersOf(r));
    return true;
  } catch {
    return false;
  }
};

async function configure(acct: TestAccount, url: string) {
  const res = await stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url } });
  expect(res.status).toBe(201);
  return res.body.webhook as { id: string; secret: string };
}

describe('Standard Webhooks', () => {
  it('every delivery verifies with the standardwebhooks package and with X-Service-Signature; webhook-id is the delivery id on every retry', async () => {
    let refused = false;
    // The first payment.created attempt fails, so that its retry can be compared with it.
    const receiver = await startReceiver((_n, r) => (r.body?.event === 'payment.created' && !refused ? ((refused = true), 500) : 200));
    try {
      const acct = await stack.newAccount();
      const { secret } = await configure(acct, receiver.url);
      const key = acct.test_api_key;
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      for (const action of ['deposit', 'approve', 'release']) await stack.http.post(`/api/v1/payments/${p.body.id}/${action}`, { key });
      const got = await eventually(
        async () =>
          receiver.received.length >= 5 && new Set(receiver.received.map((r) => r.body.event)).size === 4 ? receiver.received : undefined,
        20_000,
        'four events and a retry',
      );
      for (const r of got) {
        expect(r.headers['webhook-id']).toBe(r.headers['x-service-delivery']);
        expect(standardVerifies(secret, r)).toBe(true);
        expect(verifyWebhookSignature(r.raw, String(r.headers['x-service-signature']), secret)).toBe(true);
        expect(verifyWebhook(r.raw, r.headers, secret)).toEqual({ ok: true, scheme: 'standard-webhooks' });
      }
      // The first attempt (payment.created) failed: its retry carries the same webhook-id.
      const created = got.filter((r) => r.body.event === 'payment.created');
      expect(created).toHaveLength(2);
      expect(created[1].headers['webhook-id']).toBe(created[0].headers['webhook-id']);
      const sequences = Object.fromEntries(got.map((r) => [r.body.event, r.body.sequence]));
      expect(sequences).toEqual({ 'payment.created': 1, 'payment.deposited': 2, 'payment.approved': 3, 'payment.released': 4 });
      expect(Object.keys(got[0].body).sort()).toEqual(['data', 'event', 'payment_id', 'sequence', 'timestamp']);
    } finally {
      await receiver.close();
    }
  });

  it('during a rotation overlap, a receiver with only the old secret and one with only the new both accept; without overlap only the new', async () => {
    const receiver = await startReceiver();
    try {
      const acct = await stack.newAccount();
      const key = acct.test_api_key;
      const { id, secret: old } = await configure(acct, receiver.url);
      const rotated = await stack.http.post(`/api/v1/webhooks/${id}/rotate-secret`, { key, body: {} });
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.webhook.secret as string;
      expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      const during = await eventually(
        async () => receiver.received.find((r) => r.body.payment_id === p.body.id),
        20_000,
        'a delivery during the overlap',
      );
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect([standardVerifies(old, during), standardVerifies(fresh, during)]).toEqual([true, true]);
      expect(verifyWebhookSignature(during.raw, String(during.headers['x-service-signature']), fresh)).toBe(true);

      const again = await stack.http.post(`/api/v1/webhooks/${id}/rotate-secret`, { key, body: { expire_previous_in_seconds: 0 } });
      const newest = again.body.webhook.secret as string;
      const q = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      const after = await eventually(
        async () => receiver.received.find((r) => r.body.payment_id === q.body.id),
        20_000,
        'a delivery after the overlap',
      );
      expect([standardVerifies(fresh, after), standardVerifies(newest, after)]).toEqual([false, true]);
    } finally {
      await receiver.close();
    }
  });

  it('rotate-secret refuses an unknown field and an out-of-range overlap', async () => {
    const acct = await stack.newAccount();
    const { id } = await configure(acct, 'http://127.0.0.1:9/hook');
    for (const body of [{ extra: 1 }, { expire_previous_in_seconds: -1 }, { expire_previous_in_seconds: 604801 }]) {
      const res = await stack.http.post(`/api/v1/webhooks/${id}/rotate-secret`, { key: acct.test_api_key, body });
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
    }
  });

  it('verifyWebhook refuses a stale timestamp, a wrong secret and a tampered body', () => {
    const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
    const body = '{"event":"payment.created"}';
    const now = Date.now();
    const signed = new Webhook(secret).sign('dlv_1', new Date(now), body);
    const headers = { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(Math.floor(now / 1000)), 'webhook-signature': signed };
    expect(verifyWebhook(body, headers, secret, { now }).ok).toBe(true);
    expect(verifyWebhook(body, headers, secret, { now: now + 10 * 60_000 }).ok).toBe(false);
    expect(verifyWebhook(body, headers, 'whsec_' + Buffer.alloc(32, 2).toString('base64'), { now }).ok).toBe(false);
    expect(verifyWebhook(body.replace('created', 'released'), headers, secret, { now }).ok).toBe(false);
  });
});
