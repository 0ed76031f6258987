// @ts-check
/**
 * Test sends counted per account and mode as well as per configuration (docs/security.md,
 * "Quotas"): a configuration's count went with it when it was deleted, so configuring, testing,
 * deleting and configuring again gave a fresh budget. This count outlives every configuration.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('account_test_sends', (t) => {
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.timestamp('hour', { useTz: true }).notNullable();
    t.integer('sent').notNullable();
    t.primary(['account_id', 'livemode']);
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('account_test_sends');
};
