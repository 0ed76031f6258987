/**
 * The typed client of examples/client: docs/quickstart.md's TypeScript variant is the example's
 * own code, and it takes a payment through custody against a real stack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickstart } from '../examples/client/quickstart';
import { useStack } from './helpers/stack';

const stack = useStack();

describe('examples/client', () => {
  it('docs/quickstart.md shows the example’s code as it is', () => {
    const example = fs.readFileSync(path.join(__dirname, '../examples/client/quickstart.ts'), 'utf8');
    const fn = example.slice(example.indexOf('export async function quickstart'), example.indexOf('\nif (require.main')).trimEnd();
    expect(fn.length).toBeGreaterThan(500);
    expect(fs.readFileSync(path.join(__dirname, '../docs/quickstart.md'), 'utf8')).toContain(fn);
  });

  it('takes a payment through custody with typed calls, and a refusal as an ApiRequestError', async () => {
    const acct = await stack.newAccount();
    const { payment, history } = await quickstart(stack.url, acct.test_api_key);
    expect(payment.status).toBe('released');
    expect(history.map((h) => h.to)).toEqual(['pending_deposit', 'in_custody', 'pending_release', 'released']);
  });
});
