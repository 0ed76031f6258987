/**
 * Requests refused before any route runs: unknown query parameters, a body where none is taken, oversized
 * headers, each a 400/431 in the JSON error format.
 */
import { describe, expect, it } from 'vitest';
import { useAccount, useStack } from './helpers/stack';

describe('requests refused before the routes', () => {
  const stack = useStack();
  const acct = useAccount(stack);

  it.each([
    ['/api/v1/payments?limit=5&colour=red', 'colour'],
    ['/api/v1/payments/pay_01JSTALECLAIM0000000000000?expand=x', 'expand'],
    ['/api/v1/payments/pay_01JSTALECLAIM0000000000000/events?x=1', 'x'],
    ['/api/v1/api-keys?all=true', 'all'],
    ['/api/v1/webhooks?page=2', 'page'],
  ])('GET %s: an unknown query parameter is a 400 naming it', async (path, name) => {
    const res = await stack.http.get(path, { key: acct.test_api_key });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`unknown parameter(s): ${name}`);
  });

  it('a body on POST /webhooks/:id/test is a 400, as unknown fields are elsewhere', async () => {
    const wh = await stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url: 'http://127.0.0.1:9/hook' } });
    const res = await stack.http.post(`/api/v1/webhooks/${wh.body.webhook.id}/test`, {
      key: acct.test_api_key,
      body: { event: 'payment.created' },
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
  });

  it('oversized headers get the JSON error format with a request id', async () => {
    const res = await stack.http.get('/api/v1/payments', { key: acct.test_api_key, headers: { 'X-Padding': 'x'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(res.body.error.code).toBe('request_header_fields_too_large');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });
});
