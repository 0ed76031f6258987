// @ts-check
/**
 * Personal data stays inside the service (docs/architecture.md, "Personal data"): the API writes a
 * payment's personal fields before its workflow starts, and a transition's reason before its update,
 * so that Temporal carries ids, amounts and a reason's keyed hash only. An erasure is recorded with
 * its actor.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('payment_personal', (t) => {
    t.text('payment_id').primary();
    t.text('payer_email').notNullable();
    t.text('recipient_email').notNullable();
    t.text('description');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('payment_reasons', (t) => {
    t.text('payment_id').notNullable();
    // `hmac:` and the hex HMAC-SHA256 of the text: what the workflow and the custody trail carry.
    t.text('reason_hash').notNullable();
    t.text('reason').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['payment_id', 'reason_hash']);
  });
  await knex.schema.createTable('payment_redactions', (t) => {
    t.text('payment_id').primary().references('payments.id');
    t.text('actor').notNullable();
    t.timestamp('redacted_at', { useTz: true }).notNullable();
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('payment_redactions');
  await knex.schema.dropTableIfExists('payment_reasons');
  await knex.schema.dropTableIfExists('payment_personal');
};
