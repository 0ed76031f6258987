// @ts-check
/**
 * The endpoint line is gone (docs/webhooks.md, "No tenant slows another"; issue #57): Temporal
 * schedules deliveries, PostgreSQL only caps them. Dropped: the line's columns (`waiting_since`,
 * `waiting_run`, `woken_until`), its functions and the per-delivery lease (`in_flight_until`).
 * An endpoint's attempts in flight are now the keys of its configuration's `webhooks.in_flight` (delivery id
 * → lease end), taken and given back by one UPDATE of that row each
 * (src/webhooks/endpointLeases.repository.ts): the row's own value is what a concurrent UPDATE
 * re-reads, so the cap holds without a function or a lock held across round trips.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('drop function if exists join_full_endpoint_line(text, text, integer, text)');
  await knex.raw('drop function if exists release_endpoint_lease(text, text, double precision)');
  await knex.raw('drop function if exists take_endpoint_lease(text, text, integer, double precision, text)');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_waiting');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_in_flight');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('waiting_since');
    t.dropColumn('waiting_run');
    t.dropColumn('woken_until');
    t.dropColumn('in_flight_until');
  });
  await knex.schema.alterTable('webhooks', (t) => t.jsonb('in_flight').notNullable().defaultTo('{}'));
};

/** The columns come back empty; the line's functions are those of the migrations before this one, not restored here. */
/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('webhooks', (t) => t.dropColumn('in_flight'));
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.timestamp('in_flight_until', { useTz: true }).nullable();
    t.timestamp('waiting_since', { useTz: true }).nullable();
    t.text('waiting_run').nullable();
    t.timestamp('woken_until', { useTz: true }).nullable();
  });
  await knex.raw(
    'CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (webhook_id, in_flight_until) WHERE in_flight_until IS NOT NULL',
  );
  await knex.raw(
    'CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (webhook_id, waiting_since) WHERE waiting_since IS NOT NULL',
  );
};
