/**
 * Payments made before the ledger existed get their amounts and entries from the migration, so
 * the balance and `ledger:verify` are right for old data too (docs/money.md). On a database of its
 * own, migrated to just before the ledger, filled as the service wrote it then, then migrated.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createAccount } from '../src/db/accounts';
import { MIGRATIONS_DIR, createDb } from '../src/db/knex';
import { findBalances, findLedgerViolations, paymentLedger } from '../src/db/ledger';
import { balanceView } from '../src/views/ledgerView';
import { type LegacyStep, legacyPayment } from './helpers/legacyPayments';

const LEDGER_MIGRATION = '20261123000000_ledger.js';
const migrations = { directory: MIGRATIONS_DIR, loadExtensions: ['.js'] };
const name = `ledger_migration_${randomBytes(6).toString('hex')}`;
let admin: Knex;
let db: Knex;

beforeAll(async () => {
  admin = createDb(inject('databaseUrl'));
  await admin.raw(`create database ${name}`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  db = createDb(url.toString());
  for (;;) {
    const [, pending] = (await db.migrate.list(migrations)) as [unknown, { file: string }[]];
    if (pending[0]?.file === LEDGER_MIGRATION) break;
    await db.migrate.up(migrations);
  }
});
afterAll(async () => {
  await db?.destroy();
  await admin?.raw(`drop database if exists ${name}`);
  await admin?.destroy();
});

const paymentBefore = (accountId: string, amountMinor: number, steps: LegacyStep[]) => legacyPayment(db, accountId, amountMinor, steps);

it('writes the entries, amounts and balances of payments made before it, and every invariant holds', async () => {
  const { account_id } = await createAccount(db, `legacy-${name}@example.com`, 'legacy-password');
  const created: [string, null, string] = ['create', null, 'pending_deposit'];
  const held = await paymentBefore(account_id, 1000, [created, ['deposit', 'pending_deposit', 'in_custody']]);
  const released = await paymentBefore(account_id, 2500, [
    created,
    ['deposit', 'pending_deposit', 'in_custody'],
    ['approve', 'in_custody', 'pending_release'],
    ['release', 'pending_release', 'released'],
  ]);
  const refunded = await paymentBefore(account_id, 700, [
    created,
    ['deposit', 'pending_deposit', 'in_custody'],
    ['dispute', 'in_custody', 'disputed'],
    ['resolve', 'disputed', 'refunded'],
  ]);
  const cancelled = await paymentBefore(account_id, 300, [created, ['cancel', 'pending_deposit', 'cancelled']]);

  await db.migrate.latest(migrations);

  const amounts = await db('payments')
    .select('id', 'held_minor', 'released_minor', 'refunded_minor', 'fee_collected_minor')
    .whereIn('id', [held, released, refunded, cancelled]);
  const byId = Object.fromEntries(amounts.map((r: Record<string, string>) => [r.id, r]));
  expect(byId[held]).toMatchObject({ held_minor: '1000', released_minor: '0', refunded_minor: '0' });
  expect(byId[released]).toMatchObject({ held_minor: '0', released_minor: '2500', refunded_minor: '0', fee_collected_minor: '0' });
  expect(byId[refunded]).toMatchObject({ held_minor: '0', released_minor: '0', refunded_minor: '700' });
  expect(byId[cancelled]).toMatchObject({ held_minor: '0', released_minor: '0', refunded_minor: '0' });

  expect((await paymentLedger(db, released)).map((e) => [e.type, e.version])).toEqual([
    ['deposit', 2],
    ['release', 4],
  ]);
  expect((await paymentLedger(db, refunded)).map((e) => [e.type, e.version])).toEqual([
    ['deposit', 2],
    ['refund', 4],
  ]);
  expect(await paymentLedger(db, cancelled)).toEqual([]);

  const balance = balanceView(false, await findBalances(db, { accountId: account_id, livemode: false }));
  expect(balance.balances).toEqual([{ currency: 'USD', deposited: 42, held: 10, released: 25, released_net: 25, refunded: 7, fees: 0 }]);
  expect((await findLedgerViolations(db, account_id)).violations).toEqual([]);
});
