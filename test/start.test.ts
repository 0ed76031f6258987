/**
 * `npm start` on a fresh checkout: the whole stack in one command, on the embedded PGlite
 * database and a dev server it starts itself; prints the URLs, the demo login and a test key.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDb, migrate } from '../src/platform/database/knex';
import { DEMO_FILE, demoCredentials } from '../src/demo';
import { freePort, listeningPorts } from '../src/platform/lib/net';
import { findTemporalCli } from '../src/platform/lib/temporalDevServer';
import { Unauthenticated } from '../src/platform/useCaseErrors';
import { accountsService } from '../src/tenants/tenants.service';
import { eventually, httpClient, validPayment } from './helpers/stack';

const ROOT = path.resolve(__dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-start-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('npm start', () => {
  it('brings up dev server, worker and API on PGlite, prints the banner, serves payments, stops on SIGTERM', async () => {
    const [port, devPort, uiPort, receiverPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TEMPORAL_DEV_PORT: String(devPort),
      TEMPORAL_UI_PORT: String(uiPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      API_METRICS_PORT: '0',
      WEBHOOK_LOOPBACK_PORTS: String(receiverPort),
    };
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;
    delete env.SERVICE_JWT_SECRET;
    delete env.WEBHOOK_SECRET_KEY;
    delete env.AUDIT_SIGNING_KEY;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const key = await eventually(async () => /Test key\s+(svc_test_\S+)/.exec(out)?.[1], 90_000, `banner; output so far:\n${out}`);
      expect(out).toContain(`API          http://127.0.0.1:${port}/api/v1`);
      // Both keys are handed over: the live one beside the test one, in the banner and in demo.json.
      const liveKey = /Live key\s+(svc_live_\S+)/.exec(out)?.[1];
      expect(liveKey).toBeDefined();
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, DEMO_FILE), 'utf8'))).toMatchObject({
        test_api_key: key,
        live_api_key: liveKey,
      });
      // The UI link is the list of payments, without the schedules' runs (docs/operations.md).
      expect(out).toContain(
        `Temporal UI  http://127.0.0.1:${uiPort}/namespaces/default/workflows?query=${encodeURIComponent('RecordKind="payment"')}`,
      );
      // And each mode's payments apart.
      for (const mode of ['test', 'live']) {
        const query = encodeURIComponent(`RecordKind="payment" AND Livemode=${mode === 'live'}`);
        expect(out).toContain(`${mode} payments only: http://127.0.0.1:${uiPort}/namespaces/default/workflows?query=${query}`);
      }
      expect(out).toMatch(/Database\s+embedded PGlite/);
      // The webhooks task queue is paced per tenant by the engine (docs/webhooks.md, "No tenant slows another").
      const cli = (await findTemporalCli())!;
      const queueConfig = await promisify(execFile)(cli, [
        ...['task-queue', 'config', 'get', '--address', `127.0.0.1:${devPort}`],
        ...['--task-queue', 'payments-webhooks', '--task-queue-type', 'activity', '-o', 'json'],
      ]);
      expect(JSON.parse(queueConfig.stdout)).toMatchObject({ fairnessKeysRateLimitDefault: { rateLimit: { requestsPerSecond: 50 } } });
      // Its password is random, made for this data directory's database.
      const password = /Demo login\s+demo@example\.com \/ (\S+)/.exec(out)?.[1];
      expect(password).toMatch(/^[\w-]{16}$/);
      // Bound to loopback: nothing else on the machine's network reaches it.
      expect(out).not.toContain('on every interface');
      // Loopback receivers are allowed here on the ports listed, and the banner says so, but never a port of the stack's own.
      expect(out).toMatch(
        new RegExp(`Webhooks\\s+test mode may target loopback ports ${receiverPort}, .*\\(WEBHOOK_LOOPBACK_PORTS=${receiverPort}\\)`),
      );
      const metricsPort = Number(/Metrics\s+http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(out)?.[1]);
      const children = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
      const devServerPorts = children.flatMap(listeningPorts);
      expect(devServerPorts).toEqual(expect.arrayContaining([devPort, uiPort]));
      expect(devServerPorts.length).toBeGreaterThanOrEqual(6);
      const hooks = httpClient(`http://127.0.0.1:${port}`);
      // Every port the npm start process itself listens on (API, metrics, the worker's Temporal Core metrics) and the dev server's.
      const ownPorts = listeningPorts(child.pid!);
      expect(ownPorts.length).toBeGreaterThanOrEqual(3);
      for (const target of [port, metricsPort, ...ownPorts, ...devServerPorts]) {
        const res = await hooks.post('/api/v1/webhooks/configure', { key, body: { url: `http://localhost:${target}/hook` } });
        expect(res.status, `port ${target}`).toBe(400);
      }
      // A loopback port not listed is refused; the listed one is allowed.
      const unlisted = await hooks.post('/api/v1/webhooks/configure', { key, body: { url: `http://localhost:${await freePort()}/hook` } });
      expect(unlisted.body.error?.details?.[0]?.message).toMatch(/WEBHOOK_LOOPBACK_PORTS/);
      expect((await hooks.post('/api/v1/webhooks/configure', { key, body: { url: `http://localhost:${receiverPort}/hook` } })).status).toBe(
        201,
      );

      const api = httpClient(`http://127.0.0.1:${port}`);
      const created = await api.post('/api/v1/payments', { key, body: validPayment() });
      expect(created.status).toBe(201);
      const deposited = await api.post(`/api/v1/payments/${created.body.id}/deposit`, { key });
      expect(deposited.body.status).toBe('in_custody');
      expect((await api.get('/api/v1/payments', { key })).body.data.map((p: any) => p.id)).toEqual([created.body.id]);
      const login = await api.post('/api/v1/auth/login', { body: { email: 'demo@example.com', password } });
      expect(login.status).toBe(200);
      const guessed = await api.post('/api/v1/auth/login', { body: { email: 'demo@example.com', password: 'demo-password' } });
      expect(guessed.status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);

      // npm run ledger:verify while npm start holds the embedded database: its worker runs the check.
      const verify = (...args: string[]) =>
        promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/ledger-verify.ts'), ...args], {
          cwd: ROOT,
          env: { ...env, LOG_LEVEL: 'silent' },
        }).then(
          ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
          (e: { code: number; stdout: string; stderr: string }) => e,
        );
      const verified = await verify();
      expect(verified).toMatchObject({ code: 0, stderr: '' });
      expect(verified.stdout).toMatch(
        /^ledger verified: every invariant holds\n\(1 payment checked; the next run starts from the first\)\n$/,
      );
      // Checking the database from here cannot open it; the refusal says what to do instead, for this command.
      const direct = await verify('--skip-workflows');
      expect(direct.code).toBe(2);
      expect(direct.stderr).toContain('leave out --skip-workflows');
      expect(direct.stderr).not.toContain('api-keys');
      expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
      // Its secrets were generated under DATA_DIR, readable by the owner only.
      expect((fs.statSync(path.join(dataDir, 'secrets.json')).mode & 0o777).toString(8)).toBe('600');
      // The demo credentials are kept beside them, so a later start can show them again.
      const demoFile = path.join(dataDir, 'demo.json');
      expect((fs.statSync(demoFile).mode & 0o777).toString(8)).toBe('600');
      expect(JSON.parse(fs.readFileSync(demoFile, 'utf8'))).toMatchObject({
        email: 'demo@example.com',
        password,
        test_api_key: key,
        database: `embedded:${path.join(dataDir, 'pglite')}`,
      });
      // Output is not a terminal: JSON log lines, and the banner after them.
      expect(
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .every((l) => JSON.parse(l) !== undefined),
      ).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);

    // A second start on the same data shows the same test key again.
    const again = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let second = '';
    again.stdout.on('data', (c) => (second += c));
    again.stderr.on('data', (c) => (second += c));
    const againExited = new Promise<number | null>((resolve) => again.once('exit', resolve));
    try {
      const shown = await eventually(
        async () => /Test key\s+(svc_test_\S+)/.exec(second)?.[1],
        90_000,
        `second banner; output so far:\n${second}`,
      );
      expect(shown).toBe(JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8')).test_api_key);
    } finally {
      again.kill('SIGTERM');
    }
    expect(await againExited).toBe(0);

    // On another database (PostgreSQL, with accounts of its own) the embedded one's credentials would
    // answer 401: the banner does not show them.
    const embedded = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as { test_api_key: string };
    const other = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: inject('databaseUrl') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let third = '';
    other.stdout.on('data', (c) => (third += c));
    other.stderr.on('data', (c) => (third += c));
    const otherExited = new Promise<number | null>((resolve) => other.once('exit', resolve));
    try {
      await eventually(async () => (/Accounts\s|Test key\s/.test(third) ? true : undefined), 90_000, `third banner:\n${third}`);
      expect(third).not.toContain(embedded.test_api_key);
      expect(third).toMatch(/Database\s+postgres:/);
      const shown = /Test key\s+(svc_test_\S+)/.exec(third)?.[1];
      // Either no demo account (the database had accounts) or one that works there.
      if (shown) expect((await httpClient(`http://127.0.0.1:${port}`).get('/api/v1/balance', { key: shown })).status).toBe(200);
      else expect(third).toContain('no demo account');
    } finally {
      other.kill('SIGTERM');
    }
    expect(await otherExited).toBe(0);
  }, 240_000);

  it('LOG_FORMAT=auto is human-readable on a terminal and JSON elsewhere', async () => {
    const { resolveLogFormat } = await import('../src/platform/lib/logger');
    expect([
      resolveLogFormat('auto', true),
      resolveLogFormat('auto', false),
      resolveLogFormat('json', true),
      resolveLogFormat('pretty', false),
    ]).toEqual(['pretty', 'json', 'json', 'pretty']);
  });

  it("an old data directory's fixed demo password is replaced, and demo.json's top level always describes the database in use", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-demo-'));
    const file = path.join(dir, DEMO_FILE);
    const read = () => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
    const jwtSecret = () => randomBytes(32).toString('base64');
    const embedded = { DATA_DIR: dir, DATABASE_URL: undefined };
    const postgres = { DATA_DIR: dir, DATABASE_URL: inject('databaseUrl') };
    const local = createDb(undefined, dir);
    const shared = createDb(postgres.DATABASE_URL);
    try {
      await migrate(local);
      const localAccounts = accountsService({ db: local, jwtSecret });
      const sharedAccounts = accountsService({ db: shared, jwtSecret });
      // A data directory from before random passwords: the fixed one, in a file of one database's credentials.
      const old = await localAccounts.createAccount('demo@example.com', 'demo-password');
      fs.writeFileSync(file, JSON.stringify({ email: 'demo@example.com', password: 'demo-password', test_api_key: old.test_api_key }));
      // The shared database has accounts of its own, and so no demo account for this directory.
      await sharedAccounts.createAccount(`user-${randomUUID()}@example.com`, 'pw-not-a-demo');

      // Started first on the shared database: the top level names no credentials, and the old ones are kept.
      expect(await demoCredentials(postgres, shared, sharedAccounts)).toBeUndefined();
      expect(read()).not.toHaveProperty('test_api_key');
      expect(read()).not.toHaveProperty('password');

      // Then on the embedded one: its demo login gets a random password, the file says it.
      const demo = await demoCredentials(embedded, local, localAccounts);
      expect(demo?.test_api_key).toBe(old.test_api_key);
      expect(demo?.password).toMatch(/^[\w-]{16}$/);
      expect((await localAccounts.login('demo@example.com', demo!.password)).token).toBeTruthy();
      await expect(localAccounts.login('demo@example.com', 'demo-password')).rejects.toBeInstanceOf(Unauthenticated);
      expect(read()).toMatchObject({ email: 'demo@example.com', password: demo!.password, test_api_key: old.test_api_key });

      // On the shared database again: no credentials at the top, the embedded one's still kept for it.
      expect(await demoCredentials(postgres, shared, sharedAccounts)).toBeUndefined();
      const after = read();
      expect([after.email, after.password, after.test_api_key]).toEqual([undefined, undefined, undefined]);
      expect(Object.values(after.databases)).toContainEqual({
        email: 'demo@example.com',
        password: demo!.password,
        test_api_key: old.test_api_key,
      });
      expect((await demoCredentials(embedded, local, localAccounts))?.password).toBe(demo!.password);
      expect(read().test_api_key).toBe(old.test_api_key);
    } finally {
      await local.destroy();
      await shared.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
