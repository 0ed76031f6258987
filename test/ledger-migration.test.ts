/**
 * Payments made before the ledger existed get their amounts and entries from the migration, so
 * the balance and `ledger:verify` are right for old data too (docs/money.md). On a database of its
 * own, migrated to just before the ledger, filled as the service wrote it then, then migrated.
 */
import { expect, it } from 'vitest';
import { createAccount } from '../src/tenants/tenants.repository';
import { findBalances, findLedgerViolations, paymentLedger } from '../src/ledger/ledger.repository';
import { balanceView } from '../src/ledger/ledger.view';
import { CREATED, DEPOSITED, HELD_STEPS, RELEASED_STEPS, useLegacyDatabase } from './helpers/legacyPayments';

const LEDGER_MIGRATION = '20261123000000_ledger.js';
const legacy = useLegacyDatabase('ledger_migration', LEDGER_MIGRATION);

it('writes the entries, amounts and balances of payments made before it, and every invariant holds', async () => {
  const { account_id } = await createAccount(legacy.db, `legacy-${legacy.name}@example.com`, 'legacy-password');
  const held = await legacy.payment(account_id, 1000, HELD_STEPS);
  const released = await legacy.payment(account_id, 2500, RELEASED_STEPS);
  const refunded = await legacy.payment(account_id, 700, [
    CREATED,
    DEPOSITED,
    ['dispute', 'in_custody', 'disputed'],
    ['resolve', 'disputed', 'refunded'],
  ]);
  const cancelled = await legacy.payment(account_id, 300, [CREATED, ['cancel', 'pending_deposit', 'cancelled']]);

  await legacy.migrateLatest();

  const amounts = await legacy
    .db('payments')
    .select('id', 'held_minor', 'released_minor', 'refunded_minor', 'fee_collected_minor')
    .whereIn('id', [held, released, refunded, cancelled]);
  const byId = Object.fromEntries(amounts.map((r: Record<string, string>) => [r.id, r]));
  expect(byId[held]).toMatchObject({ held_minor: '1000', released_minor: '0', refunded_minor: '0' });
  expect(byId[released]).toMatchObject({ held_minor: '0', released_minor: '2500', refunded_minor: '0', fee_collected_minor: '0' });
  expect(byId[refunded]).toMatchObject({ held_minor: '0', released_minor: '0', refunded_minor: '700' });
  expect(byId[cancelled]).toMatchObject({ held_minor: '0', released_minor: '0', refunded_minor: '0' });

  expect((await paymentLedger(legacy.db, released)).map((e) => [e.type, e.version])).toEqual([
    ['deposit', 2],
    ['release', 4],
  ]);
  expect((await paymentLedger(legacy.db, refunded)).map((e) => [e.type, e.version])).toEqual([
    ['deposit', 2],
    ['refund', 4],
  ]);
  expect(await paymentLedger(legacy.db, cancelled)).toEqual([]);

  const balance = balanceView(false, await findBalances(legacy.db, { accountId: account_id, livemode: false }));
  expect(balance.balances).toEqual([{ currency: 'USD', deposited: 42, held: 10, released: 25, released_net: 25, refunded: 7, fees: 0 }]);
  expect((await findLedgerViolations(legacy.db, account_id)).violations).toEqual([]);
});
