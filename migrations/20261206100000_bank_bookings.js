// @ts-check
/**
 * The custody account at the bank in the ledger (docs/bank.md, docs/money.md): an entry made from a
 * booking of the bank (a credit funding a payment or an unapplied credit, a payout or return the bank
 * paid) records which booking it was, so that each day's statement can be matched to the ledger's
 * entries of that day (docs/reconciliation.md): the booking date (`BookgDt`), the reference it carried
 * (the payment's RF creditor reference for a credit, the `EndToEndId` for a payout or return) and the
 * bank's own reference for the entry (`AcctSvcrRef`), when it gave one.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.date('bank_booked_on').nullable();
    t.text('bank_reference').nullable();
    t.text('bank_entry_ref').nullable();
  });
  await knex.raw(
    'create index ledger_entries_bank_booked_on on ledger_entries (bank_booked_on, currency) where bank_booked_on is not null',
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index if exists ledger_entries_bank_booked_on');
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.dropColumn('bank_entry_ref');
    t.dropColumn('bank_reference');
    t.dropColumn('bank_booked_on');
  });
};
