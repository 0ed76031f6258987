/**
 * `npm start` stopped and started again on the same data directory (docs/operations.md, "Stopping
 * `npm start`"): a signal to npm alone stops the whole stack, and a second start while the first still
 * holds Temporal's state, on other ports, is refused naming it instead of failing to connect.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../src/platform/lib/net';
import { eventually } from './helpers/stack';
import { processesMentioning } from './helpers/entryProcess';

const ROOT = path.resolve(__dirname, '..');
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 3000));
  for (const d of dirs) for (const pid of processesMentioning(d)) process.kill(pid, 'SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function portEnv() {
  return {
    PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    API_METRICS_PORT: '0',
  };
}

function start(command: string[], env: Record<string, string>) {
  const full: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env };
  delete full.TEMPORAL_ADDRESS;
  if (!env.DATABASE_URL) delete full.DATABASE_URL;
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const run = { child, out: '', exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) };
  child.stdout.on('data', (c) => (run.out += c));
  child.stderr.on('data', (c) => (run.out += c));
  return run;
}

const banner = (run: { out: string }) =>
  eventually(async () => (/Test key\s|Accounts\s/.test(run.out) ? true : undefined), 120_000, 'banner');

describe('npm start stopped and started again', () => {
  it('a SIGTERM to npm alone stops the whole stack: no process of it is left', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-restart-'));
    dirs.push(dataDir);
    const ports = await portEnv();
    const run = start(['npm', 'start'], { ...ports, DATA_DIR: dataDir });
    await banner(run);
    expect(processesMentioning(dataDir).length).toBeGreaterThan(0); // its dev server
    run.child.kill('SIGTERM'); // npm's pid, as `kill <pid>` or a supervisor does
    await run.exited;
    await eventually(async () => (processesMentioning(dataDir).length === 0 ? true : undefined), 60_000, 'the dev server gone');
    // Everything of it: the API's port is free again.
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${ports.PORT}/healthz`).then(
          () => undefined,
          () => true,
        )) ?? undefined,
      30_000,
      'the API gone',
    );
  }, 240_000);

  it('a second start on the same DATA_DIR, other ports, while the first runs: refused naming it, the first unharmed', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-restart-'));
    dirs.push(dataDir);
    const main = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/main.ts')];
    // PostgreSQL, so that the embedded database's own lock is not what refuses the second.
    const database = { DATABASE_URL: inject('databaseUrl'), DATA_DIR: dataDir };
    const first = start(main, { ...(await portEnv()), ...database });
    await banner(first);
    const second = start(main, {
      ...(await portEnv()),
      ...database,
      PAYOUT_OUTBOX_DIR: path.join(dataDir, 'outbox'),
      PAYOUT_BATCH_INTERVAL: '1s',
    });
    expect(await second.exited).toBe(1);
    expect(second.out).toContain(path.join(dataDir, 'temporal.sqlite'));
    expect(second.out).toContain('another `npm start` on this DATA_DIR is still running or stopping');
    expect(first.child.exitCode).toBeNull();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  }, 240_000);
});
