/**
 * The trust boundaries of docs/security.md, one promise per test, each against the real stack:
 * bodies too deep to process, the reference page's headers, quotas per account and mode.
 */
import { describe, expect, it } from 'vitest';
import { DOCS_HEADERS } from '../src/platform/http/docs.routes';
import { useAccount, useStack } from './helpers/stack';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('trust boundaries', () => {
  const stack = useStack();
  const acct = useAccount(stack);

  it('refuses a body nested deeper than 64 levels with 400 invalid_request, with or without an Idempotency-Key', async () => {
    for (const raw of [nested(50_000), nestedObject(65), nested(65)]) {
      for (const headers of [{}, { 'Idempotency-Key': `deep-${raw.length}` }] as Record<string, string>[]) {
        const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw, headers });
        expect([res.status, res.body.error.code], raw.slice(0, 20)).toEqual([400, 'invalid_request']);
        expect(res.body.error.message).toContain('64 levels');
      }
    }
    // Before any other work: before authentication too.
    const anonymous = await stack.http.post('/api/v1/payments', { raw: nested(65) });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([400, 'invalid_request']);
    // 64 levels are read (and then refused by the schema, as any array would be).
    const deepest = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, raw: nested(64) });
    expect(deepest.status).toBe(400);
    expect(deepest.body.error.message).not.toContain('64 levels');
  });

  it('sends a Content-Security-Policy, nosniff and no-referrer with the reference page and its assets', async () => {
    for (const path of ['/docs', '/docs/assets/docs-init.js', '/docs/assets/swagger-ui.css']) {
      const res = await fetch(`${stack.url}${path}`);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    expect(DOCS_HEADERS['Content-Security-Policy']).not.toContain('unsafe-eval');
  });
});

describe('quotas per account and mode', () => {
  const stack = useStack();

  it('at most 16 webhook configurations per account and mode: the 17th is a 409 webhook_limit_reached that creates nothing', async () => {
    const acct = await stack.newAccount();
    const configure = (n: number) =>
      stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url: `http://127.0.0.1:9/hook/${n}` } });
    for (let i = 0; i < 16; i++) expect((await configure(i)).status, `configuration ${i + 1}`).toBe(201);
    const refused = await configure(16);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'webhook_limit_reached']);
    expect(refused.body.error.details).toEqual({ limit: 16, setting: 'MAX_WEBHOOKS_PER_ACCOUNT' });
    const listed = (await stack.http.get('/api/v1/webhooks', { key: acct.test_api_key })).body.data as { id: string }[];
    expect(listed).toHaveLength(16);
    // Concurrent requests cannot pass the quota together; deleting one makes room for one.
    const racing = await Promise.all([17, 18, 19].map(configure));
    expect(racing.map((r) => r.status)).toEqual([409, 409, 409]);
    expect((await stack.http.delete(`/api/v1/webhooks/${listed[0].id}`, { key: acct.test_api_key })).status).toBe(200);
    const again = await Promise.all([20, 21, 22].map(configure));
    expect(again.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('at most 20 active API keys per account and mode: the 21st is a 409 api_key_limit_reached; revoking one makes room', async () => {
    const acct = await stack.newAccount();
    const create = () => stack.http.post('/api/v1/api-keys', { key: acct.test_api_key, body: { mode: 'test' } });
    // The account starts with one test key.
    for (let i = 1; i < 20; i++) expect((await create()).status, `key ${i + 1}`).toBe(201);
    const refused = await create();
    expect([refused.status, refused.body.error.code]).toEqual([409, 'api_key_limit_reached']);
    expect(refused.body.error.details).toEqual({ limit: 20, setting: 'MAX_API_KEYS_PER_ACCOUNT' });
    const keys = (await stack.http.get('/api/v1/api-keys', { key: acct.test_api_key })).body.data as { id: string }[];
    expect(keys).toHaveLength(20);
    // The live mode's quota is its own.
    expect((await stack.http.post('/api/v1/api-keys', { key: acct.live_api_key, body: { mode: 'live' } })).status).toBe(201);
    expect((await stack.http.delete(`/api/v1/api-keys/${keys[0].id}`, { key: acct.test_api_key })).status).toBe(200);
    expect((await create()).status).toBe(201);
  });
});

describe('the request rate limit per account and mode (RATE_LIMIT_PER_SECOND=5)', () => {
  const stack = useStack({ env: { RATE_LIMIT_PER_SECOND: '5' } });

  it('counts every key of an account and mode together: more keys never multiply the budget', async () => {
    const acct = await stack.newAccount();
    const keys = [acct.test_api_key];
    for (let i = 0; i < 3; i++) {
      const made = await stack.http.post('/api/v1/api-keys', { key: acct.test_api_key, body: { mode: 'test' } });
      if (made.status === 201) keys.push(made.body.key as string);
    }
    expect(keys).toHaveLength(4);
    // The budgets count one-second windows: begin the burst on a fresh one.
    await new Promise((r) => setTimeout(r, 1100));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => stack.http.get('/api/v1/balance', { key: keys[i % 4] })));
    const statuses = answers.map((r) => r.status);
    // Twenty requests over four keys stay within each key's 5, but not within the account's 5
    // (10 at most, should the burst straddle two windows).
    expect(statuses.filter((s) => s === 200).length, String(statuses)).toBeLessThanOrEqual(10);
    expect(
      statuses.filter((s) => s !== 200).every((s) => s === 429),
      String(statuses),
    ).toBe(true);
    // Live mode is another budget.
    expect((await stack.http.get('/api/v1/balance', { key: acct.live_api_key })).status).toBe(200);
  });
});
