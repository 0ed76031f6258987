/**
 * Temporal out of reach: `npm start`, `npm run ledger:verify` and `npm run temporal` each end with a
 * message naming the address they tried and the setting that chose it (TEMPORAL_ADDRESS, or
 * TEMPORAL_DEV_PORT for the dev server `npm start` runs): docs/settings.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../src/platform/lib/net';

const ROOT = path.resolve(__dirname, '..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Run a command of the project to its end; its exit code and output. */
function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  const full = Object.fromEntries(
    Object.entries({ ...process.env, LOG_LEVEL: 'warn', ...env }).filter(([k]) => !(k in env && env[k] === undefined)),
  ) as NodeJS.ProcessEnv;
  const child = spawn(args[0], args.slice(1), { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

/** A loopback port nothing listens on. */
const deadPort = () => freePort();

describe('Temporal out of reach', () => {
  it('npm run ledger:verify names the dev server address it tried and TEMPORAL_DEV_PORT / TEMPORAL_ADDRESS', async () => {
    const port = await deadPort();
    const res = await run(['npm', 'run', '--silent', 'ledger:verify'], {
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_DEV_PORT: String(port),
      DATABASE_URL: inject('databaseUrl'),
    });
    expect(res.code).toBe(2);
    expect(res.out).toContain(`127.0.0.1:${port}`);
    expect(res.out).toContain('TEMPORAL_DEV_PORT');
    expect(res.out).toContain('TEMPORAL_ADDRESS');
  }, 120_000);

  it('npm run ledger:verify with TEMPORAL_ADDRESS names that address and setting', async () => {
    const port = await deadPort();
    const res = await run(['npm', 'run', '--silent', 'ledger:verify'], {
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      DATABASE_URL: inject('databaseUrl'),
    });
    expect(res.code).toBe(2);
    expect(res.out).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${port}`);
  }, 120_000);

  it('npm run temporal names the address it tried and the settings', async () => {
    const port = await deadPort();
    const res = await run(['npm', 'run', '--silent', 'temporal', '--', 'workflow', 'list'], {
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_DEV_PORT: String(port),
    });
    expect(res.code).not.toBe(0);
    expect(res.out).toContain(`127.0.0.1:${port}`);
    expect(res.out).toContain('TEMPORAL_DEV_PORT');
    expect(res.out).toContain('TEMPORAL_ADDRESS');
  }, 120_000);

  it('npm start against a TEMPORAL_ADDRESS nothing answers names it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-unreachable-'));
    dirs.push(dataDir);
    const port = await deadPort();
    const res = await run([process.execPath, '--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      DATABASE_URL: undefined,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      API_METRICS_PORT: '0',
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/start-up failed: .*Temporal/);
    expect(res.out).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${port}`);
  }, 120_000);
});
