// @ts-check
/**
 * The custody account proved against the bank (docs/reconciliation.md): one row per statement of
 * the custody account, by the statement's message id (unique: a statement reconciled again, or by a
 * worker that died half-way, leaves one result). Amounts in minor units; the unmatched entries, the
 * reconciling items and the kinds of break as jsonb, as the operator reads them.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('custody_reconciliations', (t) => {
    t.text('id').primary();
    t.text('statement_message_id').notNullable().unique();
    t.text('statement_id').notNullable();
    t.date('date').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.bigInteger('bank_opening_minor').nullable();
    t.bigInteger('bank_closing_minor').notNullable();
    t.bigInteger('ledger_balance_minor').notNullable();
    t.bigInteger('owed_total_minor').notNullable();
    t.jsonb('reconciling_items').notNullable();
    t.jsonb('unmatched_bank_entries').notNullable();
    t.jsonb('unmatched_ledger_entries').notNullable();
    t.jsonb('breaks').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('reconciled_at', { useTz: true }).notNullable();
    t.index(['currency', 'date']);
  });
  await knex.raw(
    `alter table custody_reconciliations add constraint custody_reconciliations_status check (status in ('balanced', 'break'))`,
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('custody_reconciliations');
};
