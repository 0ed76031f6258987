// @ts-check
/**
 * Idempotency keys survive a failure on our side: a request whose outcome is uncertain (Temporal
 * timed out after perhaps starting the workflow) leaves its key claimable again with the same
 * resource id, so the retry finds the payment instead of making a second one.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('resource_id').notNullable().defaultTo('');
    t.timestamp('failed_at', { useTz: true });
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('resource_id');
    t.dropColumn('failed_at');
  });
};
