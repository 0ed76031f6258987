/**
 * docs/quickstart.md, run verbatim: its bash blocks, in order, in one bash from the project's root,
 * against a real stack, with only API, KEY, EMAIL, PASSWORD and HOOK_URL given. What they print is
 * what the page promises.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, bashBlocks, runBash } from './helpers/docPage';
import { startReceiver } from './helpers/receiver';
import { eventually, useStack } from './helpers/stack';

const PAGE = path.join(ROOT, 'docs/quickstart.md');

const stack = useStack();

describe('docs/quickstart.md', () => {
  it('needs curl and jq, as the page says (CI installs them: .ci/run)', () => {
    for (const tool of ['curl', 'jq']) {
      const found = spawnSync('bash', ['-c', `command -v ${tool}`]).status === 0;
      expect(found, `${tool} is not installed: apt-get install -y ${tool}`).toBe(true);
    }
  });

  it('runs verbatim: a login, a payment released, refused once, its history and events, a test clock, signed webhooks', async () => {
    const blocks = bashBlocks(fs.readFileSync(PAGE, 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const acct = await stack.newAccount();
    const receiver = await startReceiver();
    try {
      const { code, stdout, stderr } = await runBash(blocks.join('\n'), {
        API: `${stack.url}/api/v1`,
        KEY: acct.test_api_key,
        EMAIL: acct.email,
        PASSWORD: acct.password,
        HOOK_URL: receiver.url,
      });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const pay = /created (pay_\w+)/.exec(stdout)?.[1];
      expect(pay).toBeDefined();
      expect(stdout).toContain(`${pay} → in_custody\n${pay} → pending_release\n${pay} → released\n`);
      expect(stdout).toContain('invalid_transition: cannot refund a payment whose status is released');
      expect(stdout).toContain('logged in; 0 payment(s) on the first page\n');
      // The history: exactly its four transitions, oldest first, each by the key that made it.
      const history = stdout.split('\n').filter((l) => /^\d+\. \w+: /.test(l));
      expect(history).toHaveLength(4);
      expect(history.map((l) => l.replace(/key_\w+/, 'KEY'))).toEqual([
        '1. create: - → pending_deposit by KEY',
        '2. deposit: pending_deposit → in_custody by KEY',
        '3. approve: in_custody → pending_release by KEY',
        '4. release: pending_release → released by KEY',
      ]);
      expect(stdout).toContain('4 payment.released\n3 payment.approved\n2 payment.deposited\n1 payment.created\n');
      expect(stdout).toMatch(/pay_\w+ after 3 days: released\nlast step: auto_release by system \(auto-release delay elapsed\)\n/);

      expect(stdout).toContain(
        [
          'partial refund: in_custody, held 80, refunded 20',
          'released 80, fee 4, seller nets 76',
          'deposit: payer_deposits -100, custody 100',
          'refund: custody -20, payer_refunds 20',
          'release: custody -80, recipient_payable 76, platform_fees 4',
        ].join('\n'),
      );
      expect(stdout).toMatch(/webhook secret whsec_/);
      // The last step removed the endpoint: nothing is left to retry for hours.
      expect(stdout).toMatch(/webhook wh_\w+ deleted: true\n0 webhook endpoint\(s\) configured\n$/);
      expect((await stack.http.get('/api/v1/webhooks', { key: acct.test_api_key })).body.data).toEqual([]);
      const [hook] = await stack.db('webhooks').where({ account_id: acct.account_id });
      expect(hook.deleted_at).not.toBeNull();
      const events = await eventually(
        async () => {
          const mine = receiver.received.filter((r) => r.body?.payment_id === pay);
          return mine.length >= 4 ? mine : undefined;
        },
        30_000,
        'the four webhooks',
      );
      expect(events.map((e) => e.body.event).sort()).toEqual([
        'payment.approved',
        'payment.created',
        'payment.deposited',
        'payment.released',
      ]);
      for (const e of events) expect(e.headers['webhook-signature']).toMatch(/^v1,/);
    } finally {
      await receiver.close();
    }
  });
});
