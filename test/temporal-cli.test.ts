/** `npm run temporal -- …`: the project's Temporal CLI against the running server. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { useStack, validPayment } from './helpers/stack';

const ROOT = path.resolve(__dirname, '..');

describe('npm run temporal', () => {
  const stack = useStack();

  it('finds a payment by its PaymentStatus search attribute', async () => {
    const acct = await stack.newAccount();
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    const run = () =>
      spawnSync(
        'npm',
        [
          'run',
          '--silent',
          'temporal',
          '--',
          'workflow',
          'list',
          '--query',
          `PaymentStatus="pending_deposit" AND AccountId="${acct.account_id}"`,
          '--output',
          'json',
        ],
        {
          cwd: ROOT,
          env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress') },
          encoding: 'utf8',
        },
      );
    // Visibility is eventually consistent: ask until the new payment is listed.
    let listed = '';
    for (let i = 0; i < 50 && !listed.includes(p.body.id); i++) {
      const result = run();
      expect(result.status, result.stderr).toBe(0);
      listed = result.stdout;
      if (!listed.includes(p.body.id)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toContain(p.body.id);
  });
});
