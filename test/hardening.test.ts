/**
 * Client bytes PostgreSQL cannot store are refused at the edge, naming the field; stored answers
 * never fail on client bytes; secrets are never kept for replay; keys live 24 hours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, validPayment, type Stack, type TestAccount } from './helpers/stack';

describe('input PostgreSQL could not store', () => {
  let stack: Stack;
  let acct: TestAccount;
  beforeAll(async () => {
    stack = await startStack();
    acct = await stack.newAccount();
  });
  afterAll(async () => stack?.stop());
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

  it('an answer echoing NUL and a lone surrogate is stored and replayed, never a 500 or a stuck key', async () => {
    const key = `idem-echo-${Date.now()}`;
    // A 400 that names an unknown field echoes the client's own key.
    const raw = JSON.stringify(validPayment({ ['x\u0000\ud83d']: 1 }));
    const first = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(400);
    const again = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('secrets and idempotency', () => {
  let stack: Stack;
  let acct: TestAccount;
  beforeAll(async () => {
    stack = await startStack();
    acct = await stack.newAccount();
  });
  afterAll(async () => stack?.stop());

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

describe('minor units from ISO 4217', () => {
  let stack: Stack;
  let acct: TestAccount;
  beforeAll(async () => {
    stack = await startStack();
    acct = await stack.newAccount();
  });
  afterAll(async () => stack?.stop());

  it.each([
    [10.5, 'HUF', 1050n, 2],
    [10.05, 'IDR', 1005n, 2],
    [1.001, 'IQD', 1001n, 3],
    [99, 'COP', 9900n, 2],
    [1.001, 'KWD', 1001n, 3],
    [1500, 'JPY', 1500n, 0],
  ])('%d %s is taken as %s minor units with exponent %d, and read back unchanged', async (amount, currency, minor, exponent) => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ amount, currency }) });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(amount);
    const row = await stack.db('payments').where({ id: res.body.id }).first();
    expect([BigInt(row.amount_minor), row.amount_exponent]).toEqual([minor, exponent]);
    expect((await stack.http.get(`/api/v1/payments/${res.body.id}`, { key: acct.test_api_key })).body.amount).toBe(amount);
  });

  it.each([
    [1.5, 'JPY'],
    [10.001, 'USD'],
    [1.0001, 'KWD'],
    [1, 'XAU'],
    [1, 'XXX'],
  ])('%d %s is a 400', async (amount, currency) => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ amount, currency }) });
    expect(res.status).toBe(400);
  });

  it('a stored amount keeps its exponent: a row taken with 0 digits reads back in its own scale', async () => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ amount: 10, currency: 'HUF' }) });
    await stack.db('payments').where({ id: res.body.id }).update({ amount_minor: 10, amount_exponent: 0 });
    expect((await stack.http.get(`/api/v1/payments/${res.body.id}`, { key: acct.test_api_key })).body.amount).toBe(10);
  });
});

describe('requests refused before the routes', () => {
  let stack: Stack;
  let acct: TestAccount;
  beforeAll(async () => {
    stack = await startStack();
    acct = await stack.newAccount();
  });
  afterAll(async () => stack?.stop());

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
