/**
 * No process signs tokens with a known secret, tokens carry `exp`, and
 * webhook secrets are encrypted at rest (AES-256-GCM) while deliveries still verify.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDb } from '../src/platform/database/knex';
import { createAccount } from '../src/tenants/tenants.repository';
import { publishPublicKey } from '../src/audit/trail.repository';
import { privateKeyFromSeed, rawPublicKey } from '../src/audit/ed25519';
import { freePort } from '../src/platform/lib/net';
import { startReceiver } from './helpers/receiver';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const ROOT = path.resolve(__dirname, '..');
/** The fixed value every development process used to sign tokens with (public in the repository's history). */
const OLD_PUBLIC_DEV_SECRET = 'dev-only-secret-change-me-in-production-0000';

const stack = useStack({ env: { WEBHOOK_RETRY_INITIAL_INTERVAL: '200ms', WEBHOOK_RETRY_MAX_INTERVAL: '400ms', WEBHOOK_TIMEOUT: '2s' } });
const acct = useAccount(stack);

const children: import('node:child_process').ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const hmac = (raw: Buffer, secret: string) => createHmac('sha256', secret).update(raw).digest('hex');

async function userToken(over: { secret?: string; exp?: number | null }) {
  const user = await stack.db('users').where({ account_id: acct.account_id }).first();
  const jwt = new SignJWT({ acct: acct.account_id })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user.id)
    .setIssuer('payment-custody')
    .setIssuedAt();
  if (over.exp !== null) jwt.setExpirationTime(over.exp ?? Math.floor(Date.now() / 1000) + 600);
  return jwt.sign(new TextEncoder().encode(over.secret ?? stack.config.SERVICE_JWT_SECRET!));
}

describe('bearer tokens', () => {
  it('carry exp, one hour ahead', async () => {
    const res = await stack.http.post('/api/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(res.status).toBe(200);
    const claims = decodeJwt(res.body.token);
    expect(typeof claims.exp).toBe('number');
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('refuses a token without exp, an expired token and one signed with the old public development secret', async () => {
    // Control: a well-formed token under the stack's own secret works.
    expect((await stack.http.get('/api/v1/payments', { token: await userToken({}) })).status).toBe(200);
    for (const [what, token] of [
      ['no exp', await userToken({ exp: null })],
      ['expired', await userToken({ exp: Math.floor(Date.now() / 1000) - 60 })],
      ['old public dev secret', await userToken({ secret: OLD_PUBLIC_DEV_SECRET })],
    ] as const) {
      const res = await stack.http.get('/api/v1/payments', { token });
      expect(res.status, what).toBe(401);
      expect(res.body.error.code, what).toBe('unauthorized');
    }
  });

  it('the test stack signs with a random secret, never the old public one', () => {
    expect(stack.config.SERVICE_JWT_SECRET).not.toBe(OLD_PUBLIC_DEV_SECRET);
    expect(stack.config.SERVICE_JWT_SECRET!.length).toBeGreaterThanOrEqual(32);
  });
});

describe('npm start: local secrets under DATA_DIR', () => {
  it('adds a tree-head signing key, once, to a secrets file written before the custody trail', async () => {
    const { loadOrCreateLocalSecrets, LOCAL_SECRETS_FILE } = await import('../src/localSecrets');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-old-'));
    try {
      const old = { SERVICE_JWT_SECRET: randomBytes(32).toString('base64'), WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };
      fs.writeFileSync(path.join(dir, LOCAL_SECRETS_FILE), JSON.stringify(old), { mode: 0o600 });
      const upgraded = loadOrCreateLocalSecrets(dir);
      expect(upgraded).toMatchObject(old);
      expect(Buffer.from(upgraded.AUDIT_SIGNING_KEY, 'base64')).toHaveLength(32);
      expect(loadOrCreateLocalSecrets(dir)).toEqual(upgraded);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('generates a random JWT secret and webhook key on first start, mode 0600, and reuses them', async () => {
    const { loadOrCreateLocalSecrets } = await import('../src/localSecrets');
    const dirs = [fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-a-')), fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-b-'))];
    try {
      const first = loadOrCreateLocalSecrets(dirs[0]);
      const again = loadOrCreateLocalSecrets(dirs[0]);
      const other = loadOrCreateLocalSecrets(dirs[1]);
      expect(again).toEqual(first);
      expect(other.SERVICE_JWT_SECRET).not.toBe(first.SERVICE_JWT_SECRET);
      expect(other.WEBHOOK_SECRET_KEY).not.toBe(first.WEBHOOK_SECRET_KEY);
      expect(first.SERVICE_JWT_SECRET.length).toBeGreaterThanOrEqual(32);
      expect(first.SERVICE_JWT_SECRET).not.toBe(OLD_PUBLIC_DEV_SECRET);
      expect(Buffer.from(first.WEBHOOK_SECRET_KEY, 'base64')).toHaveLength(32);
      expect(Buffer.from(first.AUDIT_SIGNING_KEY, 'base64')).toHaveLength(32);
      expect(other.AUDIT_SIGNING_KEY).not.toBe(first.AUDIT_SIGNING_KEY);
      const files = fs.readdirSync(dirs[0]);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        const stat = fs.statSync(path.join(dirs[0], f));
        if (stat.isFile()) expect((stat.mode & 0o777).toString(8), f).toBe('600');
      }
    } finally {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('npm run api / npm run worker without their secrets', () => {
  /** Runs an entry point with the given settings removed; resolves with its exit code and output. */
  function runWithout(entry: string, remove: string[], extra: Record<string, string> = {}) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_TASK_QUEUE: `never-${randomBytes(4).toString('hex')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      API_METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      SERVICE_JWT_SECRET: randomBytes(32).toString('base64'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      AUDIT_SIGNING_KEY: inject('auditSigningKey'),
      ...extra,
    };
    for (const name of remove) Reflect.deleteProperty(env, name);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    return new Promise<{ code: number | null; output: string }>((resolve) => child.once('close', (code) => resolve({ code, output })));
  }

  it('npm run api refuses to start without SERVICE_JWT_SECRET, naming it', async () => {
    const { code, output } = await runWithout('src/bin/api.ts', ['SERVICE_JWT_SECRET']);
    expect(code).toBe(1);
    expect(output).toContain('SERVICE_JWT_SECRET');
  });

  it('npm run api and npm run worker refuse to start without WEBHOOK_SECRET_KEY, naming it', async () => {
    for (const entry of ['src/bin/api.ts', 'src/bin/worker.ts']) {
      const { code, output } = await runWithout(entry, ['WEBHOOK_SECRET_KEY']);
      expect(code, entry).toBe(1);
      expect(output, entry).toContain('WEBHOOK_SECRET_KEY');
    }
  });

  it('npm run worker does not need SERVICE_JWT_SECRET: its start-up error names only what is missing', async () => {
    const { code, output } = await runWithout('src/bin/worker.ts', ['SERVICE_JWT_SECRET', 'WEBHOOK_SECRET_KEY']);
    expect(code).toBe(1);
    expect(output).toContain('WEBHOOK_SECRET_KEY');
    expect(output).not.toContain('SERVICE_JWT_SECRET');
  });

  it('npm run worker refuses to start without AUDIT_SIGNING_KEY, naming it', async () => {
    const { code, output } = await runWithout('src/bin/worker.ts', ['AUDIT_SIGNING_KEY']);
    expect(code).toBe(1);
    expect(output).toContain('AUDIT_SIGNING_KEY: required by');
    const malformed = await runWithout('src/bin/worker.ts', [], { AUDIT_SIGNING_KEY: 'not-a-key' });
    expect(malformed.code).toBe(1);
    expect(malformed.output).toContain('AUDIT_SIGNING_KEY');
  });

  it('npm run api runs without AUDIT_SIGNING_KEY and serves the public key the workers published', async () => {
    const db = createDb(inject('databaseUrl'));
    const port = await freePort();
    try {
      const publicKey = rawPublicKey(privateKeyFromSeed(Buffer.from(inject('auditSigningKey'), 'base64')));
      await publishPublicKey(db, publicKey);
      const acct = await createAccount(db, `api-key-${randomBytes(4).toString('hex')}@example.com`, 'a password');
      const api = runWithout('src/bin/api.ts', ['AUDIT_SIGNING_KEY'], { PORT: String(port) });
      const answer = await eventually(
        async () =>
          fetch(`http://127.0.0.1:${port}/api/v1/audit/public_key`, { headers: { 'X-API-Key': acct.test_api_key } }).then(
            async (r) => (await r.json()) as { public_key: string },
            () => undefined,
          ),
        30_000,
        'the API',
      );
      expect(answer.public_key).toBe(publicKey.toString('base64'));
      children.at(-1)?.kill('SIGTERM');
      expect((await api).code).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it('a malformed WEBHOOK_SECRET_KEY is a start-up error naming it', async () => {
    const { code, output } = await runWithout('src/bin/api.ts', [], { WEBHOOK_SECRET_KEY: 'too-short' });
    expect(code).toBe(1);
    expect(output).toContain('WEBHOOK_SECRET_KEY');
  });
});

describe('webhook secrets at rest', () => {
  it('are whsec_ + base64 of at least 24 random bytes', async () => {
    const res = await stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url: 'http://127.0.0.1:9/never' } });
    expect(res.status).toBe(201);
    const secret: string = res.body.webhook.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const raw = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(raw.length).toBeGreaterThanOrEqual(24);
    expect(raw.toString('base64')).toBe(secret.slice('whsec_'.length));
  });

  it('the database row holds no clear secret (configure and rotate), and deliveries still verify', async () => {
    const receiver = await startReceiver();
    try {
      const res = await stack.http.post('/api/v1/webhooks/configure', {
        key: acct.test_api_key,
        body: { url: receiver.url, events: ['payment.created'] },
      });
      expect(res.status).toBe(201);
      const { id, secret } = res.body.webhook as { id: string; secret: string };
      const rowText = async () => JSON.stringify(await stack.db('webhooks').where({ id }).first());
      const noClear = (text: string, s: string) => {
        expect(text).not.toContain(s);
        expect(text).not.toContain(s.slice('whsec_'.length));
      };
      noClear(await rowText(), secret);

      const rotated = await stack.http.post(`/api/v1/webhooks/${id}/rotate-secret`, { key: acct.test_api_key });
      expect(rotated.status).toBe(200);
      const fresh: string = rotated.body.webhook.secret;
      expect(fresh).not.toBe(secret);
      noClear(await rowText(), fresh);

      const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      expect(p.status).toBe(201);
      const got = await eventually(async () => receiver.received.find((r) => r.body?.payment_id === p.body.id), 20_000, 'delivery');
      expect(got.headers['x-service-signature']).toBe(hmac(got.raw, fresh));
      noClear(await rowText(), fresh);
    } finally {
      await receiver.close();
    }
  });

  it('a clear secret left from before encryption is sealed on first use and still signs', async () => {
    const receiver = await startReceiver();
    try {
      const legacy = `whsec_${randomBytes(24).toString('base64')}`;
      const id = `wh_legacy${randomBytes(6).toString('hex')}`;
      await stack.db('webhooks').insert({
        id,
        account_id: acct.account_id,
        livemode: false,
        url: receiver.url,
        secret: legacy,
        events: ['payment.created'],
        active: true,
      });
      const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      expect(p.status).toBe(201);
      const got = await eventually(async () => receiver.received.find((r) => r.body?.payment_id === p.body.id), 20_000, 'delivery');
      expect(got.headers['x-service-signature']).toBe(hmac(got.raw, legacy));
      const row = JSON.stringify(await stack.db('webhooks').where({ id }).first());
      expect(row).not.toContain(legacy.slice('whsec_'.length));
    } finally {
      await receiver.close();
    }
  });

  it('what the migration writes for existing rows is what the service reads', async () => {
    // Migrations are CommonJS files without type declarations.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const migration = require('../migrations/20261122030700_webhook_secret_encryption.js');
    const { openWebhookSecret, parseWebhookSecretKey } = await import('../src/webhooks/secretBox');
    const keyText = randomBytes(32).toString('hex');
    const sealed: string = migration.seal('whsec_abc', 'wh_1', migration.parseKey(keyText));
    expect(sealed).not.toContain('abc');
    expect(openWebhookSecret(sealed, 'wh_1', parseWebhookSecretKey(keyText))).toBe('whsec_abc');
    // Bound to its row: the same ciphertext under another webhook id does not open.
    expect(() => openWebhookSecret(sealed, 'wh_2', parseWebhookSecretKey(keyText))).toThrow();
  });
});
