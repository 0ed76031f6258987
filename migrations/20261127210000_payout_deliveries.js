// @ts-check
/**
 * A payout's webhook deliveries (docs/payouts.md): each `payout.*` delivery names its payout, so the
 * step that recorded it (or that step's retry) starts exactly the series it owes.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.text('payout_id'));
  await knex.raw('create index webhook_deliveries_payout on webhook_deliveries (payout_id) where payout_id is not null');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index if exists webhook_deliveries_payout');
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('payout_id'));
};
