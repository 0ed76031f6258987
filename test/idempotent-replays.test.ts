/**
 * Idempotency keys: a replay never shows a secret again (an API key, a webhook secret), the stored answer
 * holds none, and a key lives 24 hours.
 */
import { describe, expect, it } from 'vitest';
import { useAccount, useStack, validPayment } from './helpers/stack';

describe('secrets and idempotency', () => {
  const stack = useStack();
  const acct = useAccount(stack);

  it('replaying a request that created an API key never shows the key again, and the stored answer holds no secret', async () => {
    const key = `idem-key-${Date.now()}`;
    const created = await stack.http.post('/api/v1/api-keys', {
      key: acct.test_api_key,
      body: { mode: 'test' },
      headers: { 'Idempotency-Key': key },
    });
    expect(created.status).toBe(201);
    const replay = await stack.http.post('/api/v1/api-keys', {
      key: acct.test_api_key,
      body: { mode: 'test' },
      headers: { 'Idempotency-Key': key },
    });
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('idempotency_conflict');
    expect(JSON.stringify(replay.body)).not.toContain(created.body.key);
    const stored = await stack.db('idempotency_keys').where({ account_id: acct.account_id, key }).first();
    expect(String(stored.response_body)).not.toContain(created.body.key);
  });

  it('replaying a webhook configuration never shows its secret again', async () => {
    const key = `idem-wh-${Date.now()}`;
    const body = { url: 'http://127.0.0.1:9/hook' };
    const created = await stack.http.post('/api/v1/webhooks/configure', {
      key: acct.test_api_key,
      body,
      headers: { 'Idempotency-Key': key },
    });
    expect(created.status).toBe(201);
    const replay = await stack.http.post('/api/v1/webhooks/configure', {
      key: acct.test_api_key,
      body,
      headers: { 'Idempotency-Key': key },
    });
    expect(replay.status).toBe(409);
    expect(JSON.stringify(replay.body)).not.toContain(created.body.webhook.secret);
  });

  it('a key older than 24 hours is a new key', async () => {
    const key = `idem-old-${Date.now()}`;
    const first = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    await stack
      .db('idempotency_keys')
      .where({ account_id: acct.account_id, key })
      .update({ created_at: new Date(Date.now() - 25 * 3600_000) });
    const second = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });
});
