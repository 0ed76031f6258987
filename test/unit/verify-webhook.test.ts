/** The exported receiver helper cannot be downgraded to the body-only scheme by stripping headers (docs/webhooks.md). */
import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhook, verifyWebhookSignature } from '../../src';
import { standardWebhookHeaders } from '../../src/webhooks/signature';

const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
const body = '{"event":"payment.created","payment_id":"pay_1"}';

describe('verifyWebhook', () => {
  const now = Date.now();
  const captured: Record<string, string> = {
    ...standardWebhookHeaders('dlv_1', body, [secret], now),
    'x-service-signature': signWebhookBody(body, secret),
  };

  it('accepts a delivery by its Standard Webhooks signature', () => {
    expect(verifyWebhook(body, captured, secret, { now })).toEqual({ ok: true, scheme: 'standard-webhooks' });
  });

  it('refuses a captured delivery replayed without its webhook-* headers, stale or not', () => {
    const stripped = { 'x-service-signature': captured['x-service-signature'] };
    const verdict = verifyWebhook(body, stripped, secret, { now: now + 86_400_000 });
    expect(verdict.ok).toBe(false);
    expect(verifyWebhook(body, stripped, secret, { now }).ok).toBe(false);
  });

  it('accepts the body-only scheme only when the caller allows it', () => {
    const legacy = { 'X-Service-Signature': signWebhookBody(body, secret) };
    expect(verifyWebhook(body, legacy, secret, { allowBodyOnlySignature: true })).toEqual({ ok: true, scheme: 'x-service-signature' });
    expect(verifyWebhook(body.replace('pay_1', 'pay_2'), legacy, secret, { allowBodyOnlySignature: true }).ok).toBe(false);
  });

  it('leaves verifyWebhookSignature(rawBody, signature, secret) as the spec defines it', () => {
    expect(verifyWebhookSignature(body, signWebhookBody(body, secret), secret)).toBe(true);
    expect(verifyWebhookSignature(body, undefined, secret)).toBe(false);
  });
});
