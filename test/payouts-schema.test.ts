/**
 * The payouts table holds the payout table's rules whatever writes it (migrations/…_payouts.js): its
 * statuses and failure codes match src/payouts/payout.rules.ts, a failure code exactly when failed or
 * returned, a positive amount, one payout per EndToEndId; a bank file is taken once per message id.
 */
import { describe, expect, it } from 'vitest';
import { PAYOUT_FAILURE_CODES, PAYOUT_STATUSES } from '../src/payouts/payout.rules';
import { useAccount, useStack } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);

async function recipientWithAccount() {
  const key = account.test_api_key;
  const rcp = (await stack.http.post('/api/v1/recipients', { key, body: { email: 'seller@example.com', country: 'DE' } })).body
    .id as string;
  const ba = (
    await stack.http.post(`/api/v1/recipients/${rcp}/bank_accounts`, {
      key,
      body: { account_holder_name: 'Jane Doe', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
    })
  ).body.id as string;
  return { rcp, ba };
}

// From the clock: ids and message ids stay new when the suite runs again against the same database.
let n = Date.now() * 100;
const row = (rcp: string, ba: string, over: Record<string, unknown> = {}) => {
  n += 1;
  const id = `po_SCHEMA${Date.now()}${n}`;
  return {
    id,
    account_id: 'acct_x',
    livemode: false,
    recipient_id: rcp,
    bank_account_id: ba,
    amount: 100,
    currency: 'EUR',
    amount_exponent: 2,
    end_to_end_id: id.replace('_', '-'),
    created_at: new Date(),
    updated_at: new Date(),
    ...over,
  };
};
const refused = async (write: Promise<unknown>) => {
  try {
    await write;
    return false;
  } catch (err) {
    return ['23514', '23505'].includes((err as { code?: string }).code ?? '');
  }
};

describe('the payouts table', () => {
  it("takes every status and failure code of the domain's table, a failure code exactly when failed or returned", async () => {
    const { rcp, ba } = await recipientWithAccount();
    for (const status of PAYOUT_STATUSES) {
      const failed = status === 'failed' || status === 'returned';
      await stack.db('payouts').insert(row(rcp, ba, { status, failure_code: failed ? 'account_closed' : null }));
      expect(await refused(stack.db('payouts').insert(row(rcp, ba, { status, failure_code: failed ? null : 'declined' }))), status).toBe(
        true,
      );
    }
    for (const code of PAYOUT_FAILURE_CODES) await stack.db('payouts').insert(row(rcp, ba, { status: 'failed', failure_code: code }));
    expect(await refused(stack.db('payouts').insert(row(rcp, ba, { status: 'lost' })))).toBe(true);
    expect(await refused(stack.db('payouts').insert(row(rcp, ba, { status: 'failed', failure_code: 'bank_on_fire' })))).toBe(true);
  });

  it('refuses an amount of 0 or less and a second payout with the same EndToEndId', async () => {
    const { rcp, ba } = await recipientWithAccount();
    expect(await refused(stack.db('payouts').insert(row(rcp, ba, { amount: 0 })))).toBe(true);
    expect(await refused(stack.db('payouts').insert(row(rcp, ba, { amount: -5 })))).toBe(true);
    const first = row(rcp, ba);
    await stack.db('payouts').insert(first);
    expect(await refused(stack.db('payouts').insert(row(rcp, ba, { end_to_end_id: first.end_to_end_id })))).toBe(true);
  });

  it('takes a bank file once per account, mode and message id', async () => {
    const file = (id: string, over: Record<string, unknown> = {}) => ({
      id,
      account_id: 'acct_x',
      livemode: true,
      message_id: `NTF-${n}`,
      message_type: 'camt.054.001.08',
      answer: JSON.stringify({}),
      created_at: new Date(),
      ...over,
    });
    n += 1;
    await stack.db('bank_files').insert(file(`bf_a${n}`));
    expect(await refused(stack.db('bank_files').insert(file(`bf_b${n}`)))).toBe(true);
    await stack.db('bank_files').insert(file(`bf_c${n}`, { livemode: false }));
    await stack.db('bank_files').insert(file(`bf_d${n}`, { account_id: 'acct_y' }));
  });

  it("takes an operator's file once for the whole service by its message id, and keeps its raw bytes and their hash", async () => {
    n += 1;
    const operators = (id: string, over: Record<string, unknown> = {}) => ({
      id,
      account_id: null,
      livemode: null,
      message_id: `INBOX-${n}`,
      message_type: 'camt.054.001.08',
      answer: null,
      raw: Buffer.from('<Document/>'),
      sha256: 'a'.repeat(64),
      received_at: new Date(),
      source: 'inbox:a.xml',
      created_at: new Date(),
      ...over,
    });
    await stack.db('bank_files').insert(operators(`bf_e${n}`));
    expect(await refused(stack.db('bank_files').insert(operators(`bf_f${n}`, { sha256: 'b'.repeat(64) })))).toBe(true);
    expect(await refused(stack.db('bank_files').insert(operators(`bf_g${n}`, { message_id: `INBOX-${n}-2`, raw: null })))).toBe(true);
  });
});
