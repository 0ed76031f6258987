/**
 * A taker killed while it holds a bank file (docs/bank.md, "The inbox"): `npm run bank-files -- take`
 * claims the file, then waits on the payouts it names (the test holds their table locked) and is
 * SIGKILLed there. The file stays in the inbox with its claim; a second taker finds it busy until
 * BANK_INBOX_TAKE_LEASE runs out, then takes it: one record of the file, its payout paid once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { payoutBatchWorkflow } from '../src/platform/workflows.workflow';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { settlementFile } from './helpers/bankCredits';
import { eventually, scriptEnv, useAccount, useStack, validPayment } from './helpers/stack';

const ROOT = path.resolve(__dirname, '..');
const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payout-outbox-')), 'outbox');
const inbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bank-inbox-')), 'inbox');
const settings = {
  CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
  CUSTODY_ACCOUNT_IBAN: 'DE89370400440532013000',
  CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
  PAYOUT_OUTBOX_DIR: outbox,
  PAYOUT_BATCH_INTERVAL: '365 days',
  BANK_INBOX_DIR: inbox,
  BANK_INBOX_INTERVAL: '365 days',
  BANK_INBOX_TAKE_LEASE: '20s',
};
const stack = useStack({ env: settings });
const account = useAccount(stack);

/** `npm run bank-files -- take FILE` as its own process (node itself, so a SIGKILL kills the taker). */
function taker(file: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bank-files.ts'), 'take', file], {
    cwd: ROOT,
    env: { ...scriptEnv(stack), ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, output })),
  );
  return { child, exited };
}

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

describe('a bank file taker killed half-way', () => {
  it('leaves the file claimed, busy until its lease runs out, then taken once: its payout paid once', async () => {
    const key = account.live_api_key;
    const recipient = await ok(
      await stack.http.post('/api/v1/recipients', { key, body: { email: 'shop@example.com', country: 'DE' } }),
      201,
    );
    await ok(await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } }));
    await ok(
      await stack.http.post(`/api/v1/recipients/${recipient.id}/bank_accounts`, {
        key,
        body: { account_holder_name: 'Shop Owner', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
      }),
      201,
    );
    const { recipient_email: _e, ...body } = validPayment({ amount: 20, currency: 'EUR', recipient: recipient.id });
    const payment = await ok(await stack.http.post('/api/v1/payments', { key, body }), 201);
    for (const action of ['deposit', 'approve', 'release'])
      await ok(await stack.http.post(`/api/v1/payments/${payment.id}/${action}`, { key, body: {} }));
    // Available once the platform's settlement of it is booked (docs/bank.md, "Live availability").
    const settlement = bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
    expect((await settlement.take(settlementFile(payment.funding_reference, '20.00', 'EUR'), 'test')).outcome).toBe('taken');
    const payout = await ok(
      await stack.http.post('/api/v1/payouts', { key, body: { recipient: recipient.id, currency: 'EUR', amount: 12.5 } }),
      201,
    );
    await stack.client.workflow.execute(payoutBatchWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `payout-batch-killed-${Date.now()}`,
    });
    expect((await ok(await stack.http.get(`/api/v1/payouts/${payout.id}`, { key }))).status).toBe('in_transit');

    const run = String(Date.now());
    const xml = fs
      .readFileSync(path.join(__dirname, 'fixtures/bank-files/live/camt.054.001.08-pays-x.xml'), 'utf8')
      .replaceAll('__RUN__', run)
      .replaceAll('__X__', payout.end_to_end_id)
      .replaceAll('__AMOUNT__', '12.50');
    fs.mkdirSync(inbox, { recursive: true });
    const file = path.join(inbox, 'notification.xml');
    fs.writeFileSync(file, xml);
    const messageId = `NTF-KILLED-${run}`;

    // The payouts table held: the taker claims the file, then waits on the payouts the file names.
    const lock = await stack.db.transaction();
    try {
      await lock.raw('lock table payouts in access exclusive mode');
      const first = taker(file);
      await eventually(
        async () => ((await stack.db('bank_files').where({ message_id: messageId }).first()) ? true : undefined),
        60_000,
        'the claim',
      );
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
    } finally {
      await lock.rollback();
    }
    const claimed = await stack.db('bank_files').where({ message_id: messageId });
    expect(claimed).toHaveLength(1);
    expect(claimed[0].answer).toBeNull();
    expect(fs.existsSync(file)).toBe(true);
    expect((await ok(await stack.http.get(`/api/v1/payouts/${payout.id}`, { key }))).status).toBe('in_transit');

    // Within the lease another taker leaves it alone (exit 1, busy), the file where it was.
    const second = await taker(file).exited;
    expect(second, second.output).toMatchObject({ code: 1 });
    expect(second.output).toMatch(/being taken by another taker/);
    expect(fs.existsSync(file)).toBe(true);

    // After the lease, the next taker takes it: one record, its payout paid once.
    const third = await eventually(
      async () => {
        const result = await taker(file).exited;
        return result.code === 0 ? result : undefined;
      },
      60_000,
      'the file taken after the lease',
    );
    expect(third.output).toMatch(new RegExp(`taken as ${claimed[0].id}: 1 entries, 0 unmatched`));
    expect(fs.existsSync(path.join(inbox, 'taken', 'notification.xml'))).toBe(true);
    const rows = await stack.db('bank_files').where({ message_id: messageId });
    expect(rows).toHaveLength(1);
    expect(rows[0].answer).not.toBeNull();
    expect((await ok(await stack.http.get(`/api/v1/payouts/${payout.id}`, { key }))).status).toBe('paid');
    const paidEntries = await stack.db('ledger_entries').where({ recipient_id: recipient.id, type: 'payout_paid' });
    expect(paidEntries).toHaveLength(1);
  }, 180_000);
});
