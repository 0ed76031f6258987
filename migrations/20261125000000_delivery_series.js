// @ts-check
/**
 * A delivery's running series of attempts, by name: `original` (the series its event started) or
 * the resend's workflow id; null when none runs. At most one series runs per delivery
 * (docs/webhooks.md, "Recover what a receiver missed").
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.text('series').defaultTo('original'));
  await knex('webhook_deliveries').whereNot('status', 'pending').update({ series: null });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('series'));
};
