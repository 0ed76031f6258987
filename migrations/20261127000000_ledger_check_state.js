// @ts-check
/**
 * The periodic ledger check pages through the payments across runs (docs/money.md): each check
 * (one row per Temporal Schedule) keeps where its next run starts and when a run last completed, so
 * that a restarted worker reports the check's real age.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('ledger_check_state', (t) => {
    t.text('name').primary();
    // The last payment id the previous run checked; null: the next run starts from the first.
    t.text('after_payment_id');
    t.timestamp('last_success_at', { useTz: true }).notNullable();
    t.integer('passes').notNullable().defaultTo(0);
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('ledger_check_state');
};
