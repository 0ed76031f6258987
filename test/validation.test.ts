import { describe, expect, it } from 'vitest';
import { requestHash } from '../src/platform/http/idempotency.middleware';
import { actionUpdate } from '../src/platform/workflows.workflow';
import { startStack, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack({ env: { PAYMENT_MAX_AMOUNT: '1000000' } });
const acct = useAccount(stack);

const count = async () => Number((await stack.db('payments').where({ account_id: acct.account_id }).count({ n: '*' }))[0].n);

describe('bad input is a 400 with field details and changes nothing', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['too many decimals for USD', { amount: 10.001 }, 'amount'],
    ['decimals for JPY', { amount: 1.5, currency: 'JPY' }, 'amount'],
    ['too many decimals for KWD', { amount: 1.0001, currency: 'KWD' }, 'amount'],
    ['zero', { amount: 0 }, 'amount'],
    ['negative', { amount: -1 }, 'amount'],
    ['non-numeric', { amount: 'abc' }, 'amount'],
    ['numeric string', { amount: '10.00' }, 'amount'],
    ['null amount', { amount: null }, 'amount'],
    ['above the maximum', { amount: 1_000_000.01 }, 'amount'],
    ['unknown currency', { currency: 'XYZ' }, 'currency'],
    ['not a currency code', { currency: 'dollars' }, 'currency'],
    ['bad payer e-mail', { payer_email: 'not-an-email' }, 'payer_email'],
    ['bad recipient e-mail', { recipient_email: 'a@' }, 'recipient_email'],
    ['same payer and recipient', { recipient_email: 'payer@example.com' }, 'recipient_email'],
    ['unknown field', { colour: 'blue' }, 'body'],
    ['metadata with a number', { metadata: { n: 1 } }, 'metadata.n'],
    ['too many metadata keys', { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ['fractional deadline', { deposit_deadline_seconds: 1.5 }, 'deposit_deadline_seconds'],
    ['NUL in the description', { description: 'a\u0000b' }, 'description'],
    ['NUL in a metadata value', { metadata: { k: '\u0000' } }, 'metadata.k'],
  ];
  it.each(cases)('%s', async (_name, over, field) => {
    const before = await count();
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment(over) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.map((d: any) => d.field)).toContain(field);
    expect(res.body.request_id).toMatch(/^req_/);
    expect(await count()).toBe(before);
  });

  it('a missing amount and an infinite one (1e309 in the JSON text)', async () => {
    const { amount: _omit, ...rest } = validPayment();
    const missing = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: rest });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].field).toBe('amount');
    const raw = JSON.stringify(validPayment()).replace('125.5', '1e309');
    const infinite = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw });
    expect(infinite.status).toBe(400);
    expect(infinite.body.error.details[0].field).toBe('amount');
  });

  it('accepts exact amounts at each precision and returns them unchanged', async () => {
    for (const [amount, currency] of [
      [0.01, 'USD'],
      [1500, 'JPY'],
      [1.234, 'KWD'],
      [999999.99, 'USD'],
      [0.3, 'EUR'],
    ] as const) {
      const res = await stack.http.post('/api/v1/payments', {
        key: acct.test_api_key,
        body: validPayment({ amount, currency: currency.toLowerCase() }),
      });
      expect(res.status).toBe(201);
      expect(res.body.amount).toBe(amount);
      expect(res.body.currency).toBe(currency);
    }
    const row = await stack.db('payments').where({ account_id: acct.account_id, currency: 'KWD' }).first();
    expect(row.amount_minor).toBe('1234');
  });

  it('malformed JSON, wrong content type and oversized bodies', async () => {
    const malformed = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw: '{"amount": 10,' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
    const text = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      raw: 'amount=10',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const big = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment({ description: 'x'.repeat(200 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
  });

  it('ids that cannot exist are 404s, NUL in a reason is a 400, and neither changes anything', async () => {
    for (const path of [
      '/api/v1/payments/%00',
      '/api/v1/payments/pay_%00/events',
      '/api/v1/webhooks/%00/deliveries',
      '/api/v1/payments/..%2F..',
    ]) {
      const res = await stack.http.get(path, { key: acct.test_api_key });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const cursor = await stack.http.get('/api/v1/payments?starting_after=%00', { key: acct.test_api_key });
    expect(cursor.status).toBe(400);
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    const nul = await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: acct.test_api_key, body: { reason: 'x\u0000y' } });
    expect(nul.status).toBe(400);
    expect(nul.body.error.details[0].field).toBe('reason');
    expect((await stack.http.get(`/api/v1/payments/${p.body.id}`, { key: acct.test_api_key })).body.status).toBe('pending_deposit');
  });

  it('unknown routes are JSON 404s and a bad transition body is a 400', async () => {
    const res = await stack.http.get('/api/v1/nothing-here', { key: acct.test_api_key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    const bad = await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: acct.test_api_key, body: { reason: 42 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('reason');
    expect((await stack.http.get(`/api/v1/payments/${p.body.id}`, { key: acct.test_api_key })).body.status).toBe('pending_deposit');
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response, refuses a different body, never creates twice', async () => {
    const key = `idem-${Date.now()}`;
    const before = await count();
    const first = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    const again = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const different = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment({ amount: 99 }),
      headers: { 'Idempotency-Key': key },
    });
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe('idempotency_conflict');
    expect(await count()).toBe(before + 1);
  });

  it('compares the parsed request: the same JSON with other spacing or key order replays, another value is a 409', async () => {
    const key = `idem-parsed-${Date.now()}`;
    const before = await count();
    const body = validPayment({ metadata: { order: '7', batch: 'b' } });
    const post = (raw: string) => stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    const first = await post(JSON.stringify(body));
    expect(first.status).toBe(201);
    const reordered = Object.fromEntries(Object.entries({ ...body, metadata: { batch: 'b', order: '7' } }).reverse());
    for (const raw of [JSON.stringify(body, null, 2), JSON.stringify(reordered), ` ${JSON.stringify(reordered, null, '\t')}\n`]) {
      const again = await post(raw);
      expect(again.status, raw).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    const other = await post(JSON.stringify({ ...body, metadata: { order: '8', batch: 'b' } }));
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    expect(await count()).toBe(before + 1);
  });

  it('a transition retried after its answer was lost returns its first result, not a 409', async () => {
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    const key = `idem-transition-${Date.now()}`;
    const path = `/api/v1/payments/${p.body.id}/deposit`;
    const raw = JSON.stringify({ reason: 'wire received' });
    // The state the middleware leaves after a first attempt that failed on our side (say, the
    // update applied but its answer timed out): the key is claimable again with its update id.
    const hash = requestHash('POST', path, JSON.parse(raw));
    await stack.db('idempotency_keys').insert({
      account_id: acct.account_id,
      livemode: false,
      key,
      request_hash: hash,
      resource_id: 'first-attempt-update',
      failed_at: new Date(),
    });
    await stack.client.workflow.getHandle(p.body.id).executeUpdate(actionUpdate('deposit'), {
      args: [{ reason: 'wire received', actor: 'first attempt' }],
      updateId: 'first-attempt-update',
    });
    const retry = await stack.http.post(path, { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('in_custody');
    const events = await stack.http.get(`/api/v1/payments/${p.body.id}/events`, { key: acct.test_api_key });
    expect(events.body.data.map((e: any) => e.action)).toEqual(['create', 'deposit']);

    // The same for a transition that made the payment final (here: a refund).
    const refundPath = `/api/v1/payments/${p.body.id}/refund`;
    const refundKey = `${key}-refund`;
    const refundHash = requestHash('POST', refundPath, undefined);
    await stack.db('idempotency_keys').insert({
      account_id: acct.account_id,
      livemode: false,
      key: refundKey,
      request_hash: refundHash,
      resource_id: 'first-refund-update',
      failed_at: new Date(),
    });
    await stack.client.workflow
      .getHandle(p.body.id)
      .executeUpdate(actionUpdate('refund'), { args: [{ actor: 'first attempt' }], updateId: 'first-refund-update' });
    const refundRetry = await stack.http.post(refundPath, { key: acct.test_api_key, headers: { 'Idempotency-Key': refundKey } });
    expect(refundRetry.status).toBe(200);
    expect(refundRetry.body.status).toBe('refunded');
    // Without the key, the same request is a plain 409.
    expect((await stack.http.post(refundPath, { key: acct.test_api_key })).status).toBe(409);
  });

  it('a key left in progress by a process that died is taken over once stale, keeping its payment id', async () => {
    const key = `idem-stale-${Date.now()}`;
    const raw = JSON.stringify(validPayment());
    const hash = requestHash('POST', '/api/v1/payments', JSON.parse(raw));
    const reserved = '01JSTALECLAIM0000000000000';
    await stack.db('idempotency_keys').insert({
      account_id: acct.account_id,
      livemode: false,
      key,
      request_hash: hash,
      resource_id: reserved,
      claimed_at: new Date(Date.now() - 5 * 60_000),
    });
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': key } });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(`pay_${reserved}`);
    // A fresh in-progress claim of a payment create runs again under its reserved id: Temporal
    // starts that workflow at most once, so the retry learns the true outcome instead of a 409.
    const fresh = `idem-fresh-${Date.now()}`;
    const freshId = '01JFRESHCLAIM0000000000000';
    await stack
      .db('idempotency_keys')
      .insert({ account_id: acct.account_id, livemode: false, key: fresh, request_hash: hash, resource_id: freshId });
    const again = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers: { 'Idempotency-Key': fresh } });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(`pay_${freshId}`);
    // Any other operation with a fresh in-progress claim is still a conflict.
    const keyBody = JSON.stringify({ mode: 'test' });
    const keyHash = requestHash('POST', '/api/v1/api-keys', JSON.parse(keyBody));
    const busyKey = `idem-busy-${Date.now()}`;
    await stack
      .db('idempotency_keys')
      .insert({ account_id: acct.account_id, livemode: false, key: busyKey, request_hash: keyHash, resource_id: 'x' });
    const busy = await stack.http.post('/api/v1/api-keys', {
      key: acct.test_api_key,
      raw: keyBody,
      headers: { 'Idempotency-Key': busyKey },
    });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toContain('still in progress');
  });

  it('two concurrent creates with one key make one payment', async () => {
    const key = `idem-race-${Date.now()}`;
    const before = await count();
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment(), headers: { 'Idempotency-Key': key } }),
      ),
    );
    expect(results.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.error.code === 'idempotency_conflict'))).toBe(true);
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(1);
    expect(await count()).toBe(before + 1);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After past the per-credential limit', async () => {
    const limited = await startStack({ RATE_LIMIT_PER_SECOND: '3' });
    try {
      const who = await limited.newAccount();
      const results = await Promise.all(Array.from({ length: 8 }, () => limited.http.get('/api/v1/payments', { key: who.test_api_key })));
      const refused = results.filter((r) => r.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0].body.error.code).toBe('rate_limited');
      expect(refused[0].body.error.details).toEqual({ limit: 3, setting: 'RATE_LIMIT_PER_SECOND' });
      expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.stop();
    }
  });
});

describe('every problem at once', () => {
  it('reports a bad amount together with bad e-mails and an unknown field', async () => {
    const res = await stack.http.post('/api/v1/payments', {
      key: acct.test_api_key,
      body: validPayment({ amount: 10.001, payer_email: 'nope', recipient_email: 'also-nope', colour: 'blue' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(['amount', 'body', 'payer_email', 'recipient_email']);
  });

  it('a body that is not an object is a 400 too', async () => {
    for (const raw of ['[]', '"text"', '42', 'null']) {
      const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw });
      expect(res.status, raw).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});

describe('methods', () => {
  it('a known path with the wrong method is a JSON 405', async () => {
    const put = await stack.http.call('PUT', '/api/v1/payments', { key: acct.test_api_key, body: {} });
    expect(put.status).toBe(405);
    expect(put.body.error.code).toBe('method_not_allowed');
    const get = await stack.http.get('/api/v1/payments/pay_x/deposit', { key: acct.test_api_key });
    expect(get.status).toBe(405);
  });
});
