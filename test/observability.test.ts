/**
 * What an operator watches: Prometheus metrics on API_METRICS_PORT (requests, transitions, deliveries,
 * Temporal's worker metrics), never on the public port, and a request id on every answer.
 */
import { describe, expect, it } from 'vitest';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack();

describe('metrics and request ids', () => {
  it('metrics: requests by route and status, transitions by event, deliveries by outcome, Temporal worker metrics', async () => {
    const acct = await stack.newAccount();
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: acct.test_api_key });
    // Served on API_METRICS_PORT, never on the public port.
    expect((await fetch(`${stack.url}/metrics`)).status).toBe(404);
    // Transitions are counted by the projection activity, which runs just after the answer.
    const text = await eventually(
      async () => {
        const res = await fetch(`${stack.api.metricsUrl}/metrics`);
        expect(res.headers.get('content-type')).toContain('text/plain');
        const body = await res.text();
        return /payment_transitions_total\{event="payment\.deposited"\}/.test(body) ? body : undefined;
      },
      10_000,
      'the deposit counted',
    );
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/api\/v1\/payments\/:id\/deposit",status="200"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/api\/v1\/payments",status="201"\}/);
    expect(text).toMatch(/payment_transitions_total\{event="payment\.deposited"\} \d+/);
    expect(text).toContain('# TYPE webhook_delivery_attempts_total counter');
    expect(text).toContain('# TYPE webhook_delivery_duration_seconds histogram');
    expect(text).toMatch(/^temporal_\w+/m);
  });

  it('every response carries X-Request-Id, and a sane client one is kept', async () => {
    const mine = await stack.http.get('/healthz', { headers: { 'X-Request-Id': 'client-req-123' } });
    expect(mine.headers.get('x-request-id')).toBe('client-req-123');
    const generated = await stack.http.get('/api/v1/payments');
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(generated.body.request_id).toBe(generated.headers.get('x-request-id'));
  });
});
