// @ts-check
/**
 * Webhook secrets encrypted at rest (AES-256-GCM under WEBHOOK_SECRET_KEY): a new column
 * `secret_sealed`; the clear column `secret` becomes nullable and is emptied as rows are sealed.
 *
 * Existing clear rows are sealed here when WEBHOOK_SECRET_KEY is in the environment (as it is for
 * `npm run migrate` in production). Rows this migration could not seal (no key in its environment,
 * e.g. under `npm start`, whose key lives in DATA_DIR) are sealed by the service the first time it
 * reads them (src/db/webhooks.ts). The format is the one src/webhooks/secretBox.ts reads.
 */
const { createCipheriv, randomBytes } = require('node:crypto');

Object.defineProperty(exports, '__esModule', { value: true });

/** @param {string} text @returns {Buffer} */
function parseKey(text) {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  const key = /^[A-Za-z0-9+/]{43}=$/.test(t) ? Buffer.from(t, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64');
  return key;
}

/** @param {string} secret @param {string} webhookId @param {Buffer} key */
function seal(secret, webhookId, key) {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(`webhook-secret:${webhookId}`, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', nonce.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}
exports.parseKey = parseKey;
exports.seal = seal;

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhooks', (t) => {
    t.text('secret_sealed');
    t.text('secret').nullable().alter();
  });
  const text = process.env.WEBHOOK_SECRET_KEY;
  if (!text) return;
  const key = parseKey(text);
  const rows = await knex('webhooks').whereNotNull('secret').select('id', 'secret');
  for (const row of rows) {
    await knex('webhooks')
      .where({ id: row.id, secret: row.secret })
      .update({ secret_sealed: seal(row.secret, row.id, key), secret: null });
  }
};

/** @param {import('knex').Knex} knex */
exports.down = async function down() {
  // Sealed secrets cannot go back into a NOT NULL clear column without the key; roll forward instead.
  throw new Error('20261122030700_webhook_secret_encryption cannot be reverted');
};
