/**
 * Logins that cannot be flooded (docs/security.md): the client address behind TRUST_PROXY is the
 * one our proxy wrote, a failure budget per e-mail holds across addresses, and password hashing
 * runs behind a bounded gate (beyond it: 429 with Retry-After).
 */
import { describe, expect, it } from 'vitest';
import { useStack } from './helpers/stack';

const login = (stack: ReturnType<typeof useStack>, email: string, password: string, xff: string) =>
  stack.http.post('/api/v1/auth/login', { body: { email, password }, headers: { 'X-Forwarded-For': xff } });

describe('behind one trusted proxy (TRUST_PROXY_HOPS=1)', () => {
  const stack = useStack({
    env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '3', LOGIN_FAILURES_PER_EMAIL_PER_HOUR: '4' },
  });

  it('takes the client address from the right: a left-most entry the client writes changes nothing', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await stack.http.get('/api/v1/payments', {
        key: 'garbage',
        headers: { 'X-Forwarded-For': `10.9.${i}.1, 198.51.100.${i}, 203.0.113.77` },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Another client, as our proxy saw it, has its own budget.
    expect((await stack.http.get('/api/v1/payments', { key: 'garbage', headers: { 'X-Forwarded-For': '203.0.113.78' } })).status).toBe(401);
  });

  it('counts failed logins per e-mail across addresses: past the budget, even the right password waits', async () => {
    const acct = await stack.newAccount();
    for (let i = 0; i < 4; i++) expect((await login(stack, acct.email, 'wrong password', `198.51.100.${i + 10}`)).status).toBe(401);
    const limited = await login(stack, acct.email, 'wrong password', '198.51.100.99');
    expect([limited.status, limited.body.error.code]).toEqual([429, 'rate_limited']);
    expect(limited.body.error.details).toEqual({ limit: 4, setting: 'LOGIN_FAILURES_PER_EMAIL_PER_HOUR' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(stack, acct.email, acct.password, '198.51.100.98')).status).toBe(429);
    // Another e-mail is not affected.
    const other = await stack.newAccount();
    expect((await login(stack, other.email, other.password, '198.51.100.99')).status).toBe(200);
  });
});

describe('password hashing behind a gate (PASSWORD_HASH_CONCURRENCY=1, PASSWORD_HASH_QUEUE=1)', () => {
  const stack = useStack({ env: { TRUST_PROXY: 'true', PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1' } });

  it('answers logins beyond the gate 429 with Retry-After before hashing, and serves the rest', async () => {
    const acct = await stack.newAccount();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => login(stack, acct.email, i === 0 ? acct.password : 'wrong', `192.0.2.${i + 1}`)),
    );
    const statuses = answers.map((r) => r.status);
    expect(
      statuses.every((s) => [200, 401, 429].includes(s)),
      String(statuses),
    ).toBe(true);
    // One hashing and one waiting at most: the others were refused without a hash.
    expect(statuses.filter((s) => s === 429).length, String(statuses)).toBeGreaterThanOrEqual(6);
    for (const r of answers.filter((a) => a.status === 429)) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.body.error.details).toEqual({ limit: 1, setting: 'PASSWORD_HASH_QUEUE' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Once the flood is over, a login goes through.
    expect((await login(stack, acct.email, acct.password, '192.0.2.100')).status).toBe(200);
  });
});
