/**
 * docs/quickstart.md, run verbatim: its bash blocks, in order, in one bash from the project's root,
 * against a real stack, with only API, KEY, EMAIL and PASSWORD given; and its second terminal, the
 * `sh` block that runs `npm run webhooks:listen`, as it is, stopped with Ctrl-C (SIGINT to its
 * process group, as a terminal sends it). What they print is what the page promises.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, bashBlocks, runBash } from './helpers/docPage';
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
    const page = fs.readFileSync(PAGE, 'utf8');
    const blocks = bashBlocks(page);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    // The second terminal: the one sh block that receives webhooks.
    const listenBlocks = [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.includes('webhooks:listen'));
    expect(listenBlocks).toEqual(['npm run webhooks:listen\n']);
    const acct = await stack.newAccount();
    const env = { API: `${stack.url}/api/v1`, KEY: acct.test_api_key };
    const { SERVICE_API_KEY: _ignored, ...inherited } = process.env;
    // The receiver on an ephemeral port (a test opens no fixed one), which the test stack's WEBHOOK_LOOPBACK_PORTS covers.
    const listener = spawn('bash', ['-c', listenBlocks[0]], {
      cwd: ROOT,
      env: { ...inherited, ...env, WEBHOOKS_LISTEN_PORT: '0' },
      detached: true,
    });
    let listened = '';
    listener.stdout.on('data', (c: Buffer) => (listened += c.toString()));
    listener.stderr.on('data', (c: Buffer) => (listened += c.toString()));
    const exited = new Promise<number | null>((resolve) => listener.on('exit', (code) => resolve(code)));
    try {
      const hookId = await eventually(
        async () => {
          if (listener.exitCode !== null) throw new Error(`the listener exited: ${listened}`);
          return /\(webhook (wh_\w+)\)\.\nSigning secret: whsec_/.exec(listened)?.[1];
        },
        60_000,
        'the listener',
      );
      const { code, stdout, stderr } = await runBash(blocks.join('\n'), { ...env, EMAIL: acct.email, PASSWORD: acct.password });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const pay = /created (pay_\w+)/.exec(stdout)?.[1];
      expect(pay).toBeDefined();
      expect(stdout).toContain(`${pay} → in_custody\n${pay} → pending_release\n${pay} → released\n`);
      expect(stdout).toContain('invalid_transition: cannot refund a payment whose status is released');
      // Step 9: a verified recipient paid out by the simulated bank, everything available taken.
      expect(stdout).toMatch(/^rcp_\w+ payouts_enabled: true\nbank account …0000\n/m);
      expect(stdout).toContain('payout 80 USD paid\nUSD: available 0, paid out 80\n');
      // Step 10: funded by two simulated transfers, partly then wholly.
      expect(stdout).toMatch(/^transfer 100 EUR to DE89370400440532013000 with reference RF\d{2}\w{21}\n/m);
      expect(stdout).toContain('pending_deposit: received 40, remaining 60\nin_custody: received 100, remaining 0\n');
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
      // Step 2's endpoint is the listener's, the only one.
      expect(stdout).toContain(`webhook ${hookId} → http://127.0.0.1:`);
      expect(stdout.match(/^webhook wh_/gm)).toHaveLength(1);
      // The second terminal shows each of the payment's events, verified with the secret it was given.
      const verified = await eventually(
        async () => {
          const mine = listened.split('\n').filter((l) => l.includes(pay!) && l.includes('verified (standard-webhooks)'));
          return mine.length >= 4 ? mine : undefined;
        },
        30_000,
        'the four verified deliveries',
      );
      expect(verified.map((l) => /(payment\.\w+)/.exec(l)?.[1]).sort()).toEqual([
        'payment.approved',
        'payment.created',
        'payment.deposited',
        'payment.released',
      ]);
      expect(listened).not.toContain('REFUSED');

      // Step 8: the staged deal. Its design milestone approved, then released, while the build's 700 stays held.
      expect(stdout).toContain(
        [
          'design pending_release; payment in_custody, held 1000, released 0',
          'design released; payment in_custody, held 700, released 300',
        ].join('\n'),
      );
      const deal = await eventually(
        async () => {
          const rows = await stack.db('payments').where({ account_id: acct.account_id }).select('id', 'milestones');
          return rows.find((r) => (r.milestones as unknown[]).length === 2)?.id as string | undefined;
        },
        30_000,
        'the staged deal',
      );
      const stagedLines = await eventually(
        async () => {
          const lines = listened.split('\n').filter((l) => l.includes(deal));
          return lines.some((l) => l.includes('payment.milestone_released')) ? lines : undefined;
        },
        30_000,
        "the staged deal's milestone events",
      );
      expect(stagedLines.some((l) => l.includes('payment.milestone_approved') && l.includes('verified'))).toBe(true);
      expect(stagedLines.some((l) => l.includes('payment.milestone_released') && l.includes('verified'))).toBe(true);
      // The payment's own status did not change: no payment.approved for the deal.
      expect(stagedLines.filter((l) => l.includes('payment.approved'))).toEqual([]);

      // Ctrl-C: the listener removes its endpoint; nothing is left pointing at a closed port.
      process.kill(-listener.pid!, 'SIGINT');
      await eventually(async () => (listened.includes(`Removed webhook ${hookId}.`) ? true : undefined), 30_000, 'the removal');
      await exited;
      expect((await stack.http.get('/api/v1/webhooks', { key: acct.test_api_key })).body.data).toEqual([]);
      const hooks = await stack.db('webhooks').where({ account_id: acct.account_id });
      expect(hooks.map((h) => [h.id, h.deleted_at !== null])).toEqual([[hookId, true]]);
    } finally {
      try {
        process.kill(-listener.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
});
