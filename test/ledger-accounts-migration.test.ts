/**
 * The ledger's second generation (docs/money.md) gives existing postings their addresses and the
 * per-payment custody accounts their balances: `GET /balance` answers the same numbers before and
 * after, and every invariant holds. On a database of its own, filled as the service wrote it before
 * (payments, their history, and the ledger's first generation derived from them), then migrated.
 */
import { expect, it } from 'vitest';
import { createAccount } from '../src/tenants/tenants.repository';
import { findBalances, findLedgerViolations, paymentLedger } from '../src/ledger/ledger.repository';
import { balanceView } from '../src/ledger/ledger.view';
import { CREATED, DEPOSITED, HELD_STEPS, RELEASED_STEPS, useLegacyDatabase } from './helpers/legacyPayments';

const FIRST_GENERATION = '20261123000000_ledger.js';
const SECOND_GENERATION = '20261127150000_ledger_accounts.js';
const legacy = useLegacyDatabase('ledger_accounts_migration', FIRST_GENERATION);

it('answers GET /balance with the same numbers before and after, each payment’s custody now an account of its own', async () => {
  const { account_id } = await createAccount(legacy.db, `accounts-${legacy.name}@example.com`, 'legacy-password');
  const held = await legacy.payment(account_id, 1000, HELD_STEPS);
  const released = await legacy.payment(account_id, 2500, RELEASED_STEPS);
  const refunded = await legacy.payment(account_id, 700, [CREATED, DEPOSITED, ['refund', 'in_custody', 'refunded']]);
  await legacy.migrateUpTo(SECOND_GENERATION);
  const scope = { accountId: account_id, livemode: false };
  const before = balanceView(false, await findBalances(legacy.db, scope));
  expect(before.balances).toEqual([{ currency: 'USD', deposited: 42, held: 10, released: 25, released_net: 25, refunded: 7, fees: 0 }]);

  await legacy.migrateLatest();

  expect(balanceView(false, await findBalances(legacy.db, scope))).toEqual(before);
  const custody = await legacy
    .db('ledger_account_balances')
    .where({ account_id })
    .andWhere('address', 'like', 'escrow:%')
    .orderBy('address')
    .select('address', 'balance_minor');
  expect(custody).toEqual(
    [
      { address: `escrow:${held}`, balance_minor: '1000' },
      { address: `escrow:${released}`, balance_minor: '0' },
      { address: `escrow:${refunded}`, balance_minor: '0' },
    ].sort((a, b) => a.address.localeCompare(b.address)),
  );
  const [deposit, release] = await paymentLedger(legacy.db, released);
  expect(deposit.postings.map((p) => [p.ledger_account, p.address])).toEqual([
    ['payer_deposits', 'payer_deposits'],
    ['custody', `escrow:${released}`],
  ]);
  expect(release.postings.map((p) => [p.ledger_account, p.address])).toEqual([
    ['custody', `escrow:${released}`],
    ['recipient_payable', 'recipient_payable'],
  ]);
  // One balance table: the tenant's kinds are rows of it too, by address, per account and mode.
  const kinds = await legacy
    .db('ledger_account_balances')
    .where({ account_id })
    .andWhereNot('address', 'like', 'escrow:%')
    .orderBy('address')
    .select('address', 'ledger_account', 'balance_minor');
  expect(kinds).toEqual([
    { address: 'payer_deposits', ledger_account: 'payer_deposits', balance_minor: '-4200' },
    { address: 'payer_refunds', ledger_account: 'payer_refunds', balance_minor: '700' },
    { address: 'recipient_payable', ledger_account: 'recipient_payable', balance_minor: '2500' },
  ]);
  expect((await findLedgerViolations(legacy.db, account_id)).violations).toEqual([]);
  // And the custody of a migrated payment is refused below zero from now on.
  await expect(
    legacy
      .db('ledger_account_balances')
      .where({ address: `escrow:${held}` })
      .update({ balance_minor: -1 }),
  ).rejects.toThrow(/below zero/);
});
