/**
 * The ledger check covers payouts (docs/money.md, "Payouts in the check"): each payout's entries are
 * exactly those its status implies, moving exactly its amount, and a payout whose run may still
 * change it agrees with its workflow. A mismatch forged in PostgreSQL is reported, naming the payout.
 */
import { expect, it } from 'vitest';
import { paidTestPayout } from './helpers/payouts';
import { useAccount, useStack } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);

/** A paid test payout of 50 EUR to a new recipient. */
const paidPayout = async (key: string) => (await paidTestPayout(stack, key, { email: 'payee@example.com', holder: 'Payee' })).payout;

it('a paid payout checks clean; its status forged to failed is reported against its entries and its workflow, naming it', async () => {
  const key = account.test_api_key;
  const id = await paidPayout(key);
  expect(await stack.services.ledger.verify(account.account_id)).toEqual([]);

  // The read model says failed; its entries (creation, paid) and its workflow (paid) say otherwise.
  await stack.db('payouts').where({ id }).update({ status: 'failed', failure_code: 'no_account' });
  const found = await stack.services.ledger.verify(account.account_id);
  expect(found.map((v) => [v.check, v.payoutId])).toEqual(
    expect.arrayContaining([
      ['payout_entries', id],
      ['workflow_state', id],
    ]),
  );
  expect(found.find((v) => v.check === 'payout_entries')?.message).toMatch(
    /the payout is failed: its entries are payout, payout_paid; a failed payout has payout, payout_failed/,
  );
  expect(found.find((v) => v.check === 'workflow_state')?.message).toMatch(/the workflow has the payout paid .*the read model failed/);
  // Only this payout is named: nothing else of the account breaks.
  expect(new Set(found.map((v) => v.payoutId))).toEqual(new Set([id]));
});

it('a payout whose amount was forged is reported: its entries move another amount than it shows', async () => {
  const key = account.test_api_key;
  const id = await paidPayout(key);
  await stack.db('payouts').where({ id }).update({ amount: '4000' });
  const found = await stack.services.ledger.verify(account.account_id);
  const breach = found.find((v) => v.check === 'payout_entries' && v.payoutId === id);
  expect(breach?.message).toMatch(
    /its entries move available -5000, in_transit 0, paid_out 5000; a paid payout of 4000 moves available -4000, in_transit 0, paid_out 4000/,
  );
});
