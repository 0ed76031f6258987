/**
 * Failed authentications are limited per client address; /metrics is off the
 * public port; password hashes use scrypt at OWASP's baseline (N=2^17, r=8, p=1) while older hashes keep verifying.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/tenants/tenants.repository';
import { useStack } from './helpers/stack';

const stack = useStack({ env: { TRUST_PROXY: 'true' } });

// Behind a proxy, so each test can speak for its own client address through X-Forwarded-For.

const from = (ip: string) => ({ 'X-Forwarded-For': ip });

describe('failed authentications', () => {
  it('30 failures a minute per client address, then 429 rate_limited with Retry-After for failures from there; valid credentials still pass', async () => {
    const acct = await stack.newAccount();
    const ip = '203.0.113.7';
    for (let i = 0; i < 30; i++) {
      // Bad API keys, malformed keys, forged and missing tokens all count.
      const opts = [
        { key: `svc_test_${randomBytes(24).toString('base64url').slice(0, 32)}` },
        { key: 'garbage' },
        { token: 'not.a.jwt' },
        {},
      ][i % 4];
      const res = await stack.http.get('/api/v1/payments', { ...opts, headers: from(ip) });
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    const limited = await stack.http.get('/api/v1/payments', { key: 'garbage', headers: from(ip) });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    // The refusal names the limit it met and the setting that makes it.
    expect(limited.body.error.details).toEqual({ limit: 30, setting: 'AUTH_FAILURES_PER_MINUTE' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A valid key from that address is not locked out by another client's failures...
    const valid = await stack.http.get('/api/v1/payments', { key: acct.test_api_key, headers: from(ip) });
    expect(valid.status).toBe(200);
    const token = (await stack.http.post('/api/v1/auth/login', { body: { email: acct.email, password: acct.password }, headers: from(ip) }))
      .body.token as string;
    expect((await stack.http.get('/api/v1/payments', { token, headers: from(ip) })).status).toBe(200);
    // ...while guesses from there still wait, whatever they are.
    for (const opts of [{ key: `svc_test_${'x'.repeat(32)}` }, { token: 'not.a.jwt' }, {}]) {
      expect((await stack.http.get('/api/v1/payments', { ...opts, headers: from(ip) })).status).toBe(429);
    }
    // Another address is not affected.
    expect((await stack.http.get('/api/v1/payments', { key: acct.test_api_key, headers: from('203.0.113.8') })).status).toBe(200);
    expect((await stack.http.get('/api/v1/payments', { key: 'garbage', headers: from('203.0.113.8') })).status).toBe(401);
  });

  it('successful authentications do not count', async () => {
    const acct = await stack.newAccount();
    const ip = '203.0.113.9';
    for (let i = 0; i < 40; i++) {
      const res = await stack.http.get('/api/v1/payments', { key: acct.test_api_key, headers: from(ip) });
      expect(res.status).toBe(200);
    }
  });
});

describe('password hashing', () => {
  it('new hashes use scrypt N=2^17, r=8, p=1', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('wrong', hash)).toBe(false);
  });

  it('hashes made with the earlier parameters (N=2^15) still verify', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('old password', salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = `scrypt$32768$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    expect(await verifyPassword('old password', old)).toBe(true);
    expect(await verifyPassword('other password', old)).toBe(false);
  });
});

describe('metrics port', () => {
  it('/metrics is not on the public API port: 404 there, served on API_METRICS_PORT', async () => {
    const pub = await stack.http.get('/metrics');
    expect(pub.status).toBe(404);
    expect(pub.body.error.code).toBe('not_found');
    const metricsUrl = (stack.api as { metricsUrl?: string }).metricsUrl;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metricsUrl).not.toBe(stack.url);
    const res = await fetch(`${metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE http_requests_total counter');
  });
});
