// @ts-check
/**
 * When a request claimed its Idempotency-Key: a claim left in progress by a process that died is
 * taken over once it is older than any request can run.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.timestamp('claimed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('idempotency_keys', (t) => t.dropColumn('claimed_at'));
};
