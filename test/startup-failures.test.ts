/**
 * A failed `npm start` leaves nothing behind: ports are checked before anything starts, the error
 * names the setting to change, and whatever was already started (the Temporal dev server above
 * all) is stopped before the process exits.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../src/platform/lib/net';
import { processesMentioning } from './helpers/entryProcess';

const ROOT = path.resolve(__dirname, '..');
const dirs: string[] = [];
const servers: net.Server[] = [];

afterAll(async () => {
  // Whatever a failing start left behind (the code before this fix left its dev server running).
  for (const d of dirs) for (const pid of processesMentioning(d)) process.kill(pid, 'SIGKILL');
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function occupy(port: number): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  servers.push(server);
}

async function canBind(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function npmStart(env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-startfail-'));
  dirs.push(dataDir);
  const full: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env };
  if (!env.DATABASE_URL) delete full.DATABASE_URL;
  delete full.TEMPORAL_ADDRESS;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: full,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr, dataDir };
}

const ports = async () => ({ port: await freePort(), devPort: await freePort(), uiPort: await freePort(), metricsPort: await freePort() });
// Every port ephemeral, the metrics port too: a user's own `npm start` may hold the defaults.
const portEnv = (p: { port: number; devPort: number; uiPort: number; metricsPort: number }) => ({
  PORT: String(p.port),
  TEMPORAL_DEV_PORT: String(p.devPort),
  TEMPORAL_UI_PORT: String(p.uiPort),
  API_METRICS_PORT: String(p.metricsPort),
});

describe('npm start that cannot start', () => {
  it('API port taken: exits non-zero naming PORT, and leaves no dev server running', async () => {
    const p = await ports();
    await occupy(p.port);
    const res = await npmStart(portEnv(p));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`port ${p.port} is in use: set PORT to a free port`);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(processesMentioning(res.dataDir)).toEqual([]);
    expect(await canBind(p.devPort)).toBe(true);
    expect(await canBind(p.uiPort)).toBe(true);
  }, 120_000);

  it('dev server port taken: exits non-zero naming TEMPORAL_DEV_PORT, and leaves nothing running', async () => {
    const p = await ports();
    await occupy(p.devPort);
    const res = await npmStart(portEnv(p));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`port ${p.devPort} is in use: set TEMPORAL_DEV_PORT to a free port`);
    expect(processesMentioning(res.dataDir)).toEqual([]);
    expect(await canBind(p.uiPort)).toBe(true);
  }, 120_000);

  it('UI port taken: exits non-zero naming TEMPORAL_UI_PORT', async () => {
    const p = await ports();
    await occupy(p.uiPort);
    const res = await npmStart(portEnv(p));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`port ${p.uiPort} is in use: set TEMPORAL_UI_PORT to a free port`);
    expect(processesMentioning(res.dataDir)).toEqual([]);
    expect(await canBind(p.devPort)).toBe(true);
  }, 120_000);

  it('a failure after the dev server is up (no such database) stops the dev server before exiting', async () => {
    const p = await ports();
    const url = new URL(inject('databaseUrl'));
    url.pathname = '/no_such_database_for_startup_failures';
    const res = await npmStart({ ...portEnv(p), DATABASE_URL: url.toString() });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('no_such_database_for_startup_failures');
    expect(processesMentioning(res.dataDir)).toEqual([]);
    expect(await canBind(p.devPort)).toBe(true);
    expect(await canBind(p.uiPort)).toBe(true);
  }, 120_000);
});
