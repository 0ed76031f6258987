// @ts-check
/**
 * The delivery log keeps the first 1 KB of each receiver's answer; a configuration disabled by the
 * service (a 410 from its receiver) says why.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_delivery_attempts', (t) => t.text('response_excerpt'));
  await knex.schema.alterTable('webhooks', (t) => t.text('disabled_reason'));
  await knex.schema.alterTable('webhook_deliveries', (t) => t.index(['webhook_id', 'created_at', 'id']));
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropIndex(['webhook_id', 'created_at', 'id']));
  await knex.schema.alterTable('webhooks', (t) => t.dropColumn('disabled_reason'));
  await knex.schema.alterTable('webhook_delivery_attempts', (t) => t.dropColumn('response_excerpt'));
};
