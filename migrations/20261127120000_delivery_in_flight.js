// @ts-check
/**
 * A delivery's attempt in flight holds a lease on its endpoint until `in_flight_until` (or until it
 * ends): at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT leases per configuration (docs/webhooks.md,
 * "No tenant slows another"). A lease left by a worker that died runs out by itself.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.timestamp('in_flight_until', { useTz: true }).nullable());
  await knex.raw(
    'CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (webhook_id, in_flight_until) WHERE in_flight_until IS NOT NULL',
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_in_flight');
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('in_flight_until'));
};
