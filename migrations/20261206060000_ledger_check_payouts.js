// @ts-check
/**
 * The ledger check covers payouts (docs/money.md, "Payouts in the check"): the periodic check pages
 * through them as it pages through the payments, on a cursor of their own.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('ledger_check_state', (t) => t.text('after_payout_id'));
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('ledger_check_state', (t) => t.dropColumn('after_payout_id'));
};
