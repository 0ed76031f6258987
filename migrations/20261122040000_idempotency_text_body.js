// @ts-check
/**
 * Stored answers of idempotent requests become JSON text: jsonb refuses what JSON.stringify writes
 * for NUL and lone surrogates (\u0000, \ud83d), so storing a client's own bytes could fail and
 * leave its key "in progress" forever. Text holds any JSON.stringify output.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('alter table idempotency_keys alter column response_body type text using response_body::text');
  await knex.raw('create index idempotency_keys_created_at on idempotency_keys (created_at)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index if exists idempotency_keys_created_at');
  await knex.raw('alter table idempotency_keys alter column response_body type jsonb using response_body::jsonb');
};
