// @ts-check
/**
 * The Events API: every event a payment emitted, with or without a webhook configured, scoped by
 * account and mode. Written in the same transaction as the read model, by the workflow's
 * projection and by the API after Temporal's answer (the id is derived, so both write one row).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('payment_id').notNullable();
    t.text('type').notNullable();
    t.integer('sequence').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['payment_id', 'sequence']);
    t.index(['account_id', 'livemode', 'created_at', 'id']);
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('events');
};
