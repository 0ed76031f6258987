/**
 * A client's X-Request-Id never enters Temporal (docs/api.md, "Request ids"): the service's own id
 * does; the answer still echoes the client's, and the request's log line names both.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack();

/** Every text in a Temporal answer, payload bytes decoded: what anyone who reaches Temporal can read. */
function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const v of value) texts(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) texts(v, out);
  return out;
}

describe('X-Request-Id', () => {
  it('a client’s id is echoed in the answer and appears nowhere in the payment’s Temporal history, memo or search attributes', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const clientId = `client-req-${randomBytes(6).toString('hex')}`;
    const headers = { 'X-Request-Id': clientId };
    const created = await stack.http.post('/api/v1/payments', { key, headers, body: validPayment() });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe(clientId);
    const id = created.body.id as string;
    for (const action of ['deposit', 'approve', 'release']) {
      const res = await stack.http.post(`/api/v1/payments/${id}/${action}`, { key, headers, body: {} });
      expect(res.status, action).toBe(200);
      expect(res.headers.get('x-request-id')).toBe(clientId);
    }
    // An error's body names the id the answer carries.
    const refused = await stack.http.post(`/api/v1/payments/${id}/deposit`, { key, headers, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.request_id).toBe(clientId);

    const handle = stack.client.workflow.getHandle(id);
    await eventually(async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined), 30_000, 'the run to close');
    const history = await handle.fetchHistory();
    const described = await handle.describe();
    const shown = [...texts(history), ...texts(described.raw), ...texts(described.memo), ...texts(described.searchAttributes)].join('\n');
    expect(shown).toContain(id);
    expect(shown).not.toContain(clientId);
    // The service's own ids are there instead, one per request that reached Temporal.
    expect(shown).toMatch(/req_[0-9a-f]{32}/);
  });

  it('without a client id, the answer carries the service’s own', async () => {
    const acct = await stack.newAccount();
    const res = await stack.http.get('/api/v1/payments', { key: acct.test_api_key });
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const bad = await stack.http.get('/api/v1/payments', { key: acct.test_api_key, headers: { 'X-Request-Id': 'not sane: spaces' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });
});
