// @ts-check
/**
 * A delivery that found its endpoint full waits for a turn (docs/webhooks.md, "No tenant slows
 * another"): `waiting_since` orders the waiters of a configuration, and `waiting_run` names the
 * workflow run to wake (the payment's, or the series' own) when an attempt to that endpoint ends.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.timestamp('waiting_since', { useTz: true }).nullable();
    t.text('waiting_run').nullable();
  });
  await knex.raw(
    'CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (webhook_id, waiting_since) WHERE waiting_since IS NOT NULL',
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_waiting');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('waiting_since');
    t.dropColumn('waiting_run');
  });
};
