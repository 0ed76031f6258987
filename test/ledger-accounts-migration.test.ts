/**
 * The ledger's second generation (docs/money.md) gives existing postings their addresses and the
 * per-payment custody accounts their balances: `GET /balance` answers the same numbers before and
 * after, and every invariant holds. On a database of its own, filled as the service wrote it before
 * (payments, their history, and the ledger's first generation derived from them), then migrated.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createAccount } from '../src/db/accounts';
import { MIGRATIONS_DIR, createDb } from '../src/db/knex';
import { findBalances, findLedgerViolations, paymentLedger } from '../src/db/ledger';
import { balanceView } from '../src/views/ledgerView';
import { type LegacyStep, legacyPayment } from './helpers/legacyPayments';

const FIRST_GENERATION = '20261123000000_ledger.js';
const SECOND_GENERATION = '20261127150000_ledger_accounts.js';
const migrations = { directory: MIGRATIONS_DIR, loadExtensions: ['.js'] };
const name = `ledger_accounts_migration_${randomBytes(6).toString('hex')}`;
let admin: Knex;
let db: Knex;

async function migrateUpTo(file: string) {
  for (;;) {
    const [, pending] = (await db.migrate.list(migrations)) as [unknown, { file: string }[]];
    if (pending[0]?.file === file) return;
    await db.migrate.up(migrations);
  }
}

beforeAll(async () => {
  admin = createDb(inject('databaseUrl'));
  await admin.raw(`create database ${name}`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  db = createDb(url.toString());
  await migrateUpTo(FIRST_GENERATION);
});
afterAll(async () => {
  await db?.destroy();
  await admin?.raw(`drop database if exists ${name}`);
  await admin?.destroy();
});

const payment = (accountId: string, amountMinor: number, steps: LegacyStep[]) => legacyPayment(db, accountId, amountMinor, steps);

it('answers GET /balance with the same numbers before and after, each payment’s custody now an account of its own', async () => {
  const { account_id } = await createAccount(db, `accounts-${name}@example.com`, 'legacy-password');
  const created: [string, null, string] = ['create', null, 'pending_deposit'];
  const held = await payment(account_id, 1000, [created, ['deposit', 'pending_deposit', 'in_custody']]);
  const released = await payment(account_id, 2500, [
    created,
    ['deposit', 'pending_deposit', 'in_custody'],
    ['approve', 'in_custody', 'pending_release'],
    ['release', 'pending_release', 'released'],
  ]);
  const refunded = await payment(account_id, 700, [
    created,
    ['deposit', 'pending_deposit', 'in_custody'],
    ['refund', 'in_custody', 'refunded'],
  ]);
  await migrateUpTo(SECOND_GENERATION);
  const scope = { accountId: account_id, livemode: false };
  const before = balanceView(false, await findBalances(db, scope));
  expect(before.balances).toEqual([{ currency: 'USD', deposited: 42, held: 10, released: 25, released_net: 25, refunded: 7, fees: 0 }]);

  await db.migrate.latest(migrations);

  expect(balanceView(false, await findBalances(db, scope))).toEqual(before);
  const custody = await db('ledger_account_balances').where({ account_id }).orderBy('address').select('address', 'balance_minor');
  expect(custody).toEqual(
    [
      { address: `escrow:${held}`, balance_minor: '1000' },
      { address: `escrow:${released}`, balance_minor: '0' },
      { address: `escrow:${refunded}`, balance_minor: '0' },
    ].sort((a, b) => a.address.localeCompare(b.address)),
  );
  const [deposit, release] = await paymentLedger(db, released);
  expect(deposit.postings.map((p) => [p.ledger_account, p.address])).toEqual([
    ['payer_deposits', 'payer_deposits'],
    ['custody', `escrow:${released}`],
  ]);
  expect(release.postings.map((p) => [p.ledger_account, p.address])).toEqual([
    ['custody', `escrow:${released}`],
    ['recipient_payable', 'recipient_payable'],
  ]);
  expect((await findLedgerViolations(db, account_id)).violations).toEqual([]);
  // And the custody of a migrated payment is refused below zero from now on.
  await expect(
    db('ledger_account_balances')
      .where({ address: `escrow:${held}` })
      .update({ balance_minor: -1 }),
  ).rejects.toThrow(/below zero/);
});
