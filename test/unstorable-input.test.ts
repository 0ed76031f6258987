/**
 * Client bytes PostgreSQL cannot store (lone surrogates, NUL, C1 controls, a __proto__ key) are refused at
 * the edge, naming the field, and change nothing; a refusal echoing them under an Idempotency-Key is not kept
 * (the request did not run: docs/api.md), and its retry answers the same, never a 500 or a stuck key.
 */
import { describe, expect, it } from 'vitest';
import { useAccount, useStack, validPayment } from './helpers/stack';

describe('input PostgreSQL could not store', () => {
  const stack = useStack();
  const acct = useAccount(stack);
  const payments = async () =>
    (await stack.db('payments').where({ account_id: acct.account_id }).count<{ count: string }[]>('* as count'))[0].count;

  it.each([
    ['description', { description: 'a cut emoji \ud83d' }, 'description'],
    ['a metadata value', { metadata: { order: 'x\ud83d' } }, 'metadata.order'],
    ['a metadata key', { metadata: { ['k\udc00']: 'v' } }, 'metadata.k\ufffd'],
    ['DEL in the description', { description: 'bell\u007f' }, 'description'],
    ['a C1 control in a metadata value', { metadata: { order: 'a\u0085b' } }, 'metadata.order'],
    ['a __proto__ metadata key', { metadata: JSON.parse('{"__proto__": "x", "order": "1"}') }, 'metadata.__proto__'],
  ])('%s is a 400 naming the field, and no payment is made', async (_what, over, field) => {
    const before = await payments();
    // JSON.stringify writes lone surrogates as \\uXXXX escapes (what a client would send) and keeps
    // an own "__proto__" key.
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw: JSON.stringify(validPayment(over)) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await payments()).toBe(before);
  });

  it('a lone surrogate in a transition reason is a 400 and changes nothing', async () => {
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    const res = await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: acct.test_api_key, body: { reason: '\ud83d' } });
    expect([res.status, res.body.error.details[0].field]).toEqual([400, 'reason']);
    expect((await stack.http.get(`/api/v1/payments/${p.body.id}`, { key: acct.test_api_key })).body.status).toBe('pending_deposit');
  });

  it('an answer echoing NUL and a lone surrogate under a key: the same answer again, never a 500 or a stuck key', async () => {
    const key = `idem-echo-${Date.now()}`;
    // A 400 that names an unknown field echoes the client's own key.
    const raw = JSON.stringify(validPayment({ ['x\u0000\ud83d']: 1 }));
    const first = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(400);
    const again = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(400);
    // Bad input did not run: its answer is not kept, the retry is answered afresh.
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.error).toEqual(first.body.error);
  });
});
