import { describe, expect, it } from 'vitest';
import { startStack, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const alice = useAccount(stack);
const bob = useAccount(stack);

const login = (email: string, password: string) => stack.http.post('/api/v1/auth/login', { body: { email, password } });

describe('authentication', () => {
  it('logs in with e-mail and password and acts with the bearer token for an hour', async () => {
    const res = await login(alice.email, alice.password);
    expect(res.status).toBe(200);
    expect(typeof res.body.token).toBe('string');
    const ttl = Date.parse(res.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(59 * 60_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    const created = await stack.http.post('/api/v1/payments', { token: res.body.token, body: validPayment() });
    expect(created.status).toBe(201);
    expect(created.body.livemode).toBe(false);
    const live = await stack.http.post('/api/v1/payments', { token: res.body.token, mode: 'live', body: validPayment() });
    expect(live.body.livemode).toBe(true);
    const badMode = await stack.http.get('/api/v1/payments', { token: res.body.token, mode: 'prod' });
    expect(badMode.status).toBe(400);
  });

  it('refuses wrong passwords, unknown users and missing or forged credentials with 401', async () => {
    for (const res of [
      await login(alice.email, 'wrong-password'),
      await login('nobody@example.com', 'whatever-password'),
      await stack.http.get('/api/v1/payments'),
      await stack.http.get('/api/v1/payments', { key: 'svc_test_notarealkeynotarealkeynotarealke' }),
      await stack.http.get('/api/v1/payments', { key: 'garbage' }),
      await stack.http.get('/api/v1/payments', { token: 'not.a.jwt' }),
      await stack.http.get('/api/v1/payments', { headers: { Authorization: 'Basic Zm9vOmJhcg==' } }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('limits password guessing: the 11th attempt in a minute for one e-mail is a 429', async () => {
    const victim = await stack.newAccount();
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push((await login(victim.email, `guess-${i}`)).status);
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(answers[10]).toBe(429);
    // Even the right password waits out the window: the budget is per e-mail, not per outcome.
    const right = await login(victim.email, victim.password);
    expect(right.status).toBe(429);
    expect(right.body.error.details).toEqual({ limit: 10, setting: 'LOGIN_FAILURES_PER_MINUTE' });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('successful logins do not use up the failure budget', async () => {
    const owner = await stack.newAccount();
    for (let i = 0; i < 12; i++) expect((await login(owner.email, owner.password)).status).toBe(200);
  });

  it('behind a trusted proxy, budgets are per client address from X-Forwarded-For', async () => {
    const proxied = await startStack({ TRUST_PROXY: 'true' });
    try {
      const victim = await proxied.newAccount();
      const attempt = (ip: string, password: string) =>
        proxied.http.post('/api/v1/auth/login', { body: { email: victim.email, password }, headers: { 'X-Forwarded-For': ip } });
      for (let i = 0; i < 10; i++) expect((await attempt('203.0.113.7', 'wrong')).status).toBe(401);
      expect((await attempt('203.0.113.7', victim.password)).status).toBe(429);
      // Another client behind the same proxy is not locked out by the first one's guessing.
      expect((await attempt('198.51.100.20', victim.password)).status).toBe(200);
    } finally {
      await proxied.stop();
    }
  });

  it('validates login input', async () => {
    const res = await stack.http.post('/api/v1/auth/login', { body: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(['email', 'password']);
  });
});

describe('tenancy and modes', () => {
  it('a test key never sees or changes a live payment, and the reverse', async () => {
    const live = await stack.http.post('/api/v1/payments', { key: alice.live_api_key, body: validPayment() });
    const test = await stack.http.post('/api/v1/payments', { key: alice.test_api_key, body: validPayment() });
    expect(live.body.livemode).toBe(true);
    expect((await stack.http.get(`/api/v1/payments/${live.body.id}`, { key: alice.test_api_key })).status).toBe(404);
    expect((await stack.http.post(`/api/v1/payments/${live.body.id}/deposit`, { key: alice.test_api_key })).status).toBe(404);
    expect((await stack.http.get(`/api/v1/payments/${test.body.id}`, { key: alice.live_api_key })).status).toBe(404);
    const testList = await stack.http.get('/api/v1/payments?limit=100', { key: alice.test_api_key });
    expect(testList.body.data.every((p: any) => p.livemode === false)).toBe(true);
    expect(testList.body.data.map((p: any) => p.id)).not.toContain(live.body.id);
    expect((await stack.http.get(`/api/v1/payments/${live.body.id}`, { key: alice.live_api_key })).body.status).toBe('pending_deposit');
  });

  it('one account never sees another: 404, not 403', async () => {
    const mine = await stack.http.post('/api/v1/payments', { key: alice.test_api_key, body: validPayment() });
    for (const res of [
      await stack.http.get(`/api/v1/payments/${mine.body.id}`, { key: bob.test_api_key }),
      await stack.http.get(`/api/v1/payments/${mine.body.id}/events`, { key: bob.test_api_key }),
      await stack.http.post(`/api/v1/payments/${mine.body.id}/cancel`, { key: bob.test_api_key }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const list = await stack.http.get('/api/v1/payments', { key: bob.test_api_key });
    expect(list.body.data.map((p: any) => p.id)).not.toContain(mine.body.id);
    expect((await stack.http.get(`/api/v1/payments/${mine.body.id}`, { key: alice.test_api_key })).body.status).toBe('pending_deposit');
  });
});

describe('API keys over the API', () => {
  it('creates a key shown once, lists it without the secret, revokes it', async () => {
    const created = await stack.http.post('/api/v1/api-keys', { key: alice.test_api_key, body: { mode: 'test' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    const newKey = created.body.key as string;
    expect((await stack.http.get('/api/v1/payments', { key: newKey })).status).toBe(200);
    const list = await stack.http.get('/api/v1/api-keys', { key: alice.test_api_key });
    expect(list.body.data.map((k: any) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(newKey);
    expect((await stack.http.delete(`/api/v1/api-keys/${created.body.id}`, { key: bob.test_api_key })).status).toBe(404);
    expect((await stack.http.delete(`/api/v1/api-keys/${created.body.id}`, { key: alice.test_api_key })).status).toBe(200);
    expect((await stack.http.get('/api/v1/payments', { key: newKey })).status).toBe(401);
    // A test key can never mint a live key; a live credential can.
    const escalate = await stack.http.post('/api/v1/api-keys', { key: alice.test_api_key, body: { mode: 'live' } });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.code).toBe('forbidden');
    const live = await stack.http.post('/api/v1/api-keys', { key: alice.live_api_key, body: { mode: 'live' } });
    expect(live.body.key).toMatch(/^svc_live_/);
    const token = (await stack.http.post('/api/v1/auth/login', { body: { email: alice.email, password: alice.password } })).body.token;
    expect((await stack.http.post('/api/v1/api-keys', { token, mode: 'live', body: { mode: 'live' } })).status).toBe(201);
    expect((await stack.http.post('/api/v1/api-keys', { token, body: { mode: 'live' } })).status).toBe(403);
    const bad = await stack.http.post('/api/v1/api-keys', { key: alice.test_api_key, body: { mode: 'prod' } });
    expect(bad.status).toBe(400);
  });
});
