/**
 * The embedded PGlite database is one process's alone: `npm run admin` (or anything else) started
 * while `npm start` holds the directory is refused with what to do, and the database still opens
 * afterwards. A lock left by a process that died is taken over.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from './helpers/stack';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  return env;
}

/** A process holding the PGlite directory the way `npm start` does. */
async function holder(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures/hold-pglite.ts')], {
    cwd: ROOT,
    env: embeddedEnv(dataDir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await eventually(
    async () => (out.includes('ready') ? true : child.exitCode !== null ? Promise.reject(new Error(out)) : undefined),
    60_000,
    'the holder to open PGlite',
  );
  return { child, exited };
}

async function admin(dataDir: string, email: string) {
  return run(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      path.join(ROOT, 'scripts/admin.ts'),
      'create-account',
      '--email',
      email,
      '--password',
      'a-good-password',
    ],
    { cwd: ROOT, env: embeddedEnv(dataDir) },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('embedded PGlite: one process at a time', () => {
  it('npm run admin while another process holds the directory is refused with what to do; the database opens afterwards', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-lock-'));
    dirs.push(dataDir);
    const held = await holder(dataDir);

    const refused = await admin(dataDir, 'second@example.com');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`in use by process ${held.child.pid}`);
    expect(refused.stderr).toContain('Stop `npm start`');
    expect(refused.stderr).toContain('DATABASE_URL');
    expect(refused.stderr).toContain('POST /api/v1/api-keys');
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    held.child.kill('SIGTERM');
    expect(await held.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pglite', 'service.lock'))).toBe(false);

    // The database still opens, and nothing was written by the refused process.
    const after = await admin(dataDir, 'after@example.com');
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout).email).toBe('after@example.com');
    expect((await admin(dataDir, 'second@example.com')).code).toBe(0);
  }, 120_000);

  it('a lock left by a process that was killed is taken over', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-lock-'));
    dirs.push(dataDir);
    const held = await holder(dataDir);
    held.child.kill('SIGKILL');
    await held.exited;
    expect(fs.existsSync(path.join(dataDir, 'pglite', 'service.lock'))).toBe(true);

    const res = await admin(dataDir, 'survivor@example.com');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pglite', 'service.lock'))).toBe(false);
  }, 120_000);
});
