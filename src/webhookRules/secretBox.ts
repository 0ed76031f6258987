/**
 * Webhook secrets at rest: AES-256-GCM under WEBHOOK_SECRET_KEY, with a fresh 96-bit nonce per
 * value and the webhook id as additional data (a ciphertext copied onto another row does not
 * open). Stored as `v1.<nonce>.<ciphertext>.<tag>`, each part base64url. The migration
 * `20261122030700_webhook_secret_encryption.js` writes the same format.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { parseSecretKey } from '../config';

const VERSION = 'v1';
const aad = (webhookId: string) => Buffer.from(`webhook-secret:${webhookId}`, 'utf8');

export function parseWebhookSecretKey(text: string): Buffer {
  const key = parseSecretKey(text);
  if (!key) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64');
  return key;
}

export function sealWebhookSecret(secret: string, webhookId: string, key: Buffer): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad(webhookId));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, nonce, ciphertext, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The clear secret; throws when the value was sealed under another key or for another webhook. */
export function openWebhookSecret(sealed: string, webhookId: string, key: Buffer): string {
  const parts = sealed.split('.');
  const [version, nonce, ciphertext, tag] = parts;
  if (parts.length !== 4 || version !== VERSION || !nonce || !tag) throw new Error('webhook secret: unknown sealed format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAAD(aad(webhookId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`webhook ${webhookId}: its secret does not open under this WEBHOOK_SECRET_KEY`);
  }
}
