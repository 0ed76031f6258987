/**
 * Generated requests against every endpoint, with strings from every Unicode category a careless
 * or hostile client sends (NUL, C0 and C1 controls, lone surrogates, bidi overrides, astral,
 * combining marks), with and without Idempotency-Key: never a 5xx, always the error format, no
 * payment made by a refused create, and every payment answered 201 readable and listed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentedOperations } from '../tools/documentedOperations';
import { CLIENT_ACTIONS, PAYMENT_EVENTS } from '../src/payments/paymentTypes.rules';
import { useAccount, useStack, validPayment, type HttpResult } from './helpers/stack';

const hostileChar = fc.oneof(
  fc.constantFrom(
    '\u0000',
    '\u0007',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u009f',
    '\ud83d',
    '\udc00',
    '\u202e',
    '\u200f',
    '\u0301',
    '\ufeff',
    '\uffff',
  ),
  fc.constantFrom('😀', '𝔘', '\u{10FFFF}', 'é', 'ß', '中', ' ', '\t', '\n', '"', '\\', '%', '{', '}'),
  fc.string({ maxLength: 3 }),
);
const hostileString = fc.array(hostileChar, { maxLength: 12 }).map((parts) => parts.join(''));
const jsonValue = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** A create body: mostly valid fields, each sometimes replaced by something hostile. */
const createBody = fc.record(
  {
    amount: fc.oneof(fc.constant(12.5), fc.double(), fc.integer(), hostileString),
    currency: fc.oneof(fc.constantFrom('USD', 'JPY', 'HUF', 'KWD'), hostileString),
    payer_email: fc.oneof(
      fc.constant('payer@example.com'),
      hostileString.map((s) => `${s}@example.com`),
    ),
    recipient_email: fc.oneof(fc.constant('recipient@example.com'), hostileString),
    description: maybe(fc.oneof(hostileString, fc.constant(null))),
    metadata: maybe(fc.dictionary(hostileString, fc.oneof(hostileString, jsonValue), { maxKeys: 4 })),
    deposit_deadline_seconds: maybe(fc.oneof(fc.integer(), fc.double())),
    extra: maybe(jsonValue),
  },
  { requiredKeys: [] },
);
const idempotencyKey = maybe(fc.stringMatching(/^[ -~]{1,40}$/));
const query = fc.dictionary(
  fc.oneof(fc.constantFrom('limit', 'status', 'starting_after', 'ending_before', 'created_gte', 'created_lte'), hostileString),
  hostileString,
  { maxKeys: 3 },
);

function expectNoServerError(res: HttpResult) {
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  if (res.status >= 400) {
    expect(typeof res.body.error.code).toBe('string');
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  }
}

describe('generated requests', () => {
  const stack = useStack({ env: { RATE_LIMIT_PER_SECOND: '100000', AUTH_FAILURES_PER_MINUTE: '100000' } });
  const acct = useAccount(stack);
  let paymentId: string;
  beforeAll(async () => {
    paymentId = (await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).body.id;
  });
  const count = async () =>
    Number((await stack.db('payments').where({ account_id: acct.account_id }).count<{ count: string }[]>('* as count'))[0].count);

  it('creates: no 5xx; a refusal makes nothing; a 201 is readable and listed', async () => {
    await fc.assert(
      fc.asyncProperty(createBody, idempotencyKey, async (body, key) => {
        const before = await count();
        const res = await stack.http.post('/api/v1/payments', {
          key: acct.test_api_key,
          raw: JSON.stringify(body),
          headers: key ? { 'Idempotency-Key': key } : {},
        });
        expectNoServerError(res);
        if (res.status === 201) {
          const read = await stack.http.get(`/api/v1/payments/${res.body.id}`, { key: acct.test_api_key });
          expect(read.status).toBe(200);
          const listed = await stack.http.get(`/api/v1/payments?limit=100`, { key: acct.test_api_key });
          expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(res.body.id);
        } else if (res.headers.get('idempotent-replayed') !== 'true') {
          expect(await count()).toBe(before);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('transitions, lists, webhooks, keys and login: no 5xx, always the error format', async () => {
    const action = fc.constantFrom(...CLIENT_ACTIONS, 'nope', '..');
    // Raw percent-encoded bytes too: NUL, a UTF-8-encoded surrogate, invalid UTF-8.
    const anyId = fc.oneof(
      fc.constant(paymentId),
      hostileString.map((s) => encodeURIComponent(s.toWellFormed())),
      fc.constantFrom('pay_%00', 'pay_%ED%A0%BD', 'pay_%FF%FE', 'pay_' + 'Z'.repeat(26)),
    );
    const request = fc.oneof(
      fc.record({
        kind: fc.constant('transition' as const),
        action,
        id: anyId,
        body: fc.dictionary(fc.constantFrom('reason', 'resolution', 'x'), jsonValue, { maxKeys: 2 }),
        key: idempotencyKey,
      }),
      fc.record({ kind: fc.constant('list' as const), query }),
      fc.record({
        kind: fc.constant('webhook' as const),
        url: fc.oneof(hostileString, fc.constant('http://127.0.0.1:9/hook'), fc.webUrl()),
        events: maybe(fc.array(fc.oneof(fc.constantFrom(...PAYMENT_EVENTS), hostileString), { maxLength: 3 })),
      }),
      fc.record({ kind: fc.constant('apiKey' as const), mode: jsonValue }),
      fc.record({ kind: fc.constant('login' as const), email: hostileString, password: hostileString }),
      fc.record({ kind: fc.constant('apiKeyHeader' as const), header: fc.stringMatching(/^[ -~]{0,60}$/) }),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const key = acct.test_api_key;
        let res: HttpResult;
        switch (r.kind) {
          case 'transition':
            res = await stack.http.post(`/api/v1/payments/${r.id}/${r.action}`, {
              key,
              raw: JSON.stringify(r.body),
              headers: r.key ? { 'Idempotency-Key': r.key } : {},
            });
            break;
          case 'list':
            res = await stack.http.get(`/api/v1/payments?${new URLSearchParams(r.query).toString()}`, { key });
            break;
          case 'webhook':
            res = await stack.http.post('/api/v1/webhooks/configure', { key, raw: JSON.stringify({ url: r.url, events: r.events }) });
            break;
          case 'apiKey':
            res = await stack.http.post('/api/v1/api-keys', { key, raw: JSON.stringify({ mode: r.mode }) });
            break;
          case 'login':
            res = await stack.http.post('/api/v1/auth/login', { raw: JSON.stringify({ email: r.email, password: r.password }) });
            break;
          case 'apiKeyHeader':
            res = await stack.http.get('/api/v1/payments', { key: r.header || 'x' });
            break;
        }
        expectNoServerError(res);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('generated requests on every documented endpoint', () => {
  const stack = useStack({ env: { RATE_LIMIT_PER_SECOND: '100000', AUTH_FAILURES_PER_MINUTE: '100000' } });
  const acct = useAccount(stack);
  let ids: Record<string, string>;
  beforeAll(async () => {
    const key = acct.test_api_key;
    const payment = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
    const webhook = (await stack.http.post('/api/v1/webhooks/configure', { key, body: { url: 'http://127.0.0.1:9/hook' } })).body.webhook
      .id as string;
    const event = (await stack.http.get('/api/v1/events', { key })).body.data[0].id as string;
    ids = { payment, webhook, event, delivery: 'dlv_' + 'A'.repeat(26), key: 'key_' + 'B'.repeat(26) };
  });

  /** What a refused request must leave as it was: the account's payments, configurations and keys. */
  const fingerprint = async () => {
    const { rows } = await stack.db.raw<{ rows: unknown[] }>(
      `select (select coalesce(json_agg(json_build_array(id, status, version) order by id), '[]') from payments where account_id = :a) as payments,
              (select coalesce(json_agg(json_build_array(id, active, url) order by id), '[]') from webhooks where account_id = :a and deleted_at is null) as webhooks,
              (select count(*) from api_keys where account_id = :a and revoked_at is null) as keys`,
      { a: acct.account_id },
    );
    return JSON.stringify(rows[0]);
  };

  it('every operation, with hostile ids, bodies and query strings: no 5xx, the error format, and a refusal changes nothing', async () => {
    const idFor = (name: string) =>
      fc.oneof(
        fc.constant(name === 'id' ? 'PLACEHOLDER' : ids.delivery),
        hostileString.map((s) => encodeURIComponent(s.toWellFormed())),
        fc.constantFrom('%00', '%ED%A0%BD', 'pay_' + 'Z'.repeat(26), 'wh_x'),
      );
    const request = fc.record({
      op: fc.constantFrom(...documentedOperations(stack.config)),
      id: idFor('id'),
      deliveryId: idFor('delivery_id'),
      body: fc.oneof(fc.dictionary(hostileString, jsonValue, { maxKeys: 3 }), jsonValue),
      query,
      idempotencyKey,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const realId = r.op.openApiPath.startsWith('/api/v1/webhooks')
          ? ids.webhook
          : r.op.openApiPath.startsWith('/api/v1/events')
            ? ids.event
            : r.op.openApiPath.startsWith('/api/v1/api-keys')
              ? ids.key
              : ids.payment;
        const path = r.op.openApiPath.replace('{id}', r.id === 'PLACEHOLDER' ? realId : r.id).replace('{delivery_id}', r.deliveryId);
        const qs = new URLSearchParams(r.query).toString();
        const before = await fingerprint();
        const res = await stack.http.call(r.op.method.toUpperCase(), `${path}${qs ? `?${qs}` : ''}`, {
          key: acct.test_api_key,
          ...(r.op.method === 'get' ? {} : { raw: JSON.stringify(r.body) }),
          headers: r.idempotencyKey ? { 'Idempotency-Key': r.idempotencyKey } : {},
        });
        expectNoServerError(res);
        if (res.status >= 400 && res.headers.get('idempotent-replayed') !== 'true') expect(await fingerprint()).toBe(before);
      }),
      { numRuns: 800 },
    );
  });
});
