// @ts-check
/**
 * A bank credit's events (docs/webhooks.md, "Bank credit events"; issue #54): rows of the one outbox,
 * `events`, naming the credit (`bank_credit_id`), and their deliveries naming it too, so the step that
 * recorded them (or its retry) starts exactly the series they owe. A credit booked and taken by a
 * payment at once has two events at its first version, `received` before `applied` (`ordinal`).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('events', (t) => t.text('bank_credit_id').nullable());
  await knex.raw(
    'CREATE UNIQUE INDEX events_bank_credit_sequence ON events (bank_credit_id, sequence, ordinal) WHERE bank_credit_id IS NOT NULL',
  );
  await knex.schema.alterTable('webhook_deliveries', (t) => t.text('bank_credit_id'));
  await knex.raw('CREATE INDEX webhook_deliveries_bank_credit ON webhook_deliveries (bank_credit_id) WHERE bank_credit_id IS NOT NULL');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex('webhook_deliveries').whereNotNull('bank_credit_id').delete();
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_bank_credit');
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('bank_credit_id'));
  await knex('events').whereNotNull('bank_credit_id').delete();
  await knex.raw('DROP INDEX IF EXISTS events_bank_credit_sequence');
  await knex.schema.alterTable('events', (t) => t.dropColumn('bank_credit_id'));
};
