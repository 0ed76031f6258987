// @ts-check
/**
 * Rotation with overlap: the previous secret (sealed like the current one) keeps signing beside
 * the new one until it expires, so a receiver mid-deploy accepts either.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhooks', (t) => {
    t.text('previous_secret_sealed');
    t.timestamp('previous_secret_expires_at', { useTz: true });
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('previous_secret_sealed');
    t.dropColumn('previous_secret_expires_at');
  });
};
