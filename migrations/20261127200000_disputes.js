// @ts-check
/**
 * A payment's disputes (docs/concepts.md, "Disputes"): the records as the workflow holds them, ids,
 * amounts and keyed hashes only; their texts are kept in `payment_reasons` under those hashes, and
 * erased with the payment's other free text. Null for a payment never disputed.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('payments', (t) => t.jsonb('disputes').nullable());
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('payments', (t) => t.dropColumn('disputes'));
};
