// @ts-check
/**
 * The public halves of the keys workers sign tree heads with (docs/audit.md): each worker publishes
 * its own at start, so the API serves the public key without ever holding the signing key.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('audit_signing_keys', (t) => {
    t.binary('public_key').primary(); // the 32 raw bytes of an Ed25519 public key
    t.timestamp('published_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('audit_signing_keys');
};
