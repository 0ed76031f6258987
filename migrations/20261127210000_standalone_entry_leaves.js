// @ts-check
/**
 * The workers append the custody trail's leaves of standalone ledger entries (no payment: a recipient's
 * pending money made available), which the API writes without a leaf since its database role cannot
 * write the trail (docs/audit.md). Each tree head looks for the recent ones without a leaf: this index
 * keeps that to the standalone entries of the last hour or so.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('create index ledger_entries_standalone on ledger_entries (created_at, id) where payment_id is null');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index ledger_entries_standalone');
};
