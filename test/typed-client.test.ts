/**
 * The typed client, the package payment-custody-client of packages/client (openapi-fetch over the
 * generated paths), as examples/client/quickstart.ts imports it by its name: docs/quickstart.md's
 * TypeScript variant is the example's own code, and it takes a payment through custody against a
 * real stack. What must not compile is test/typed-client.types.ts, checked by npm run typecheck;
 * the package installed from its tarball is npm run check:client-package's.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickstart } from '../examples/client/quickstart';
import { useStack } from './helpers/stack';

const stack = useStack();

describe('payment-custody-client', () => {
  it('docs/quickstart.md shows the example’s code as it is', () => {
    const example = fs.readFileSync(path.join(__dirname, '../examples/client/quickstart.ts'), 'utf8');
    const fn = example.slice(example.indexOf('export async function quickstart'), example.indexOf('\nif (require.main')).trimEnd();
    expect(fn.length).toBeGreaterThan(500);
    expect(fs.readFileSync(path.join(__dirname, '../docs/quickstart.md'), 'utf8')).toContain(fn);
  });

  it('takes a payment through custody with typed calls, and a refusal as an ApiRequestError', async () => {
    const acct = await stack.newAccount();
    const { payment, history, balances } = await quickstart(stack.url, acct.test_api_key);
    expect(payment.status).toBe('released');
    // GET /api/v1/balance takes no parameters, and the client calls it with none.
    expect(balances).toEqual([expect.objectContaining({ currency: 'USD', released: 125.5 })]);
    expect(history.map((h) => h.to)).toEqual(['pending_deposit', 'in_custody', 'pending_release', 'released']);
  });

  it('runs as the page says, with the bash quickstart’s API (ending in /api/v1) and KEY', async () => {
    const acct = await stack.newAccount();
    const { API: _api, KEY: _key, ...inherited } = process.env;
    // Asynchronously: the stack's API answers from this process.
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/client/quickstart.ts'], {
      cwd: path.join(__dirname, '..'),
      env: { ...inherited, API: `${stack.url}/api/v1`, KEY: acct.test_api_key },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('pending_deposit → in_custody, in_custody → pending_release, pending_release → released');
    // Each printed line is as its comment in the example says (`…` stands for what varies).
    const example = fs.readFileSync(path.join(__dirname, '../examples/client/quickstart.ts'), 'utf8');
    const said = [...example.matchAll(/console\.log\(.*\); \/\/ (.+)$/gm)].map((m) => m[1]);
    expect(said.length).toBeGreaterThanOrEqual(3);
    const lines = stdout.split('\n');
    for (const comment of said) {
      const shape = new RegExp(
        `^${comment
          .split('…')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('\\S*')}$`,
      );
      expect(
        lines.some((l) => shape.test(l)),
        `a line printed as "${comment}" in:\n${stdout}`,
      ).toBe(true);
    }
  });
});
