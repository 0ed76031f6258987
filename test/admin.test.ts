import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

async function admin(...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'scripts/admin.ts'), ...args],
      {
        env: { ...process.env, DATABASE_URL: inject('databaseUrl') },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run admin -- create-account', () => {
  it('prints one JSON object with the account and its two keys; a second time is refused', async () => {
    const email = `admin-${randomUUID()}@example.com`;
    const first = await admin('create-account', '--email', email, '--password', 'a-good-password');
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout);
    expect(Object.keys(created).sort()).toEqual(['account_id', 'email', 'live_api_key', 'test_api_key']);
    expect(created.email).toBe(email);
    expect(created.test_api_key).toMatch(/^svc_test_/);
    expect(created.live_api_key).toMatch(/^svc_live_/);
    const again = await admin('create-account', '--email', email, '--password', 'a-good-password');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('explains bad arguments', async () => {
    const res = await admin('create-account', '--email', 'nope', '--password', 'x');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--email must be a valid e-mail address');
    expect((await admin('frobnicate')).stderr).toContain('usage:');
  });
});

describe('start-up configuration', () => {
  it('a bad setting stops `npm run api` with a message naming it, not a stack trace', async () => {
    const res = await run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'src/bin/api.ts')], {
      env: { ...process.env, DATABASE_URL: inject('databaseUrl'), WEBHOOK_TIMEOUT: 'banana', PORT: '99999' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('WEBHOOK_TIMEOUT: not a duration: "banana"');
    expect(res.stderr).toContain('PORT:');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});
