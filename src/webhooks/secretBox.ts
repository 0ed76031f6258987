/**
 * Webhook secrets at rest: sealed by src/platform/lib/sealedBox.ts (AES-256-GCM) under WEBHOOK_SECRET_KEY,
 * with the webhook id in the additional data (a ciphertext copied onto another row does not open).
 * The migration `20261122030700_webhook_secret_encryption.js` writes the same format.
 */
import { parseSecretKey } from '../platform/lib/settingValues';
import { openText, sealText } from '../platform/lib/sealedBox';

const context = (webhookId: string) => `webhook-secret:${webhookId}`;

export function parseWebhookSecretKey(text: string): Buffer {
  const key = parseSecretKey(text);
  if (!key) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64');
  return key;
}

export function sealWebhookSecret(secret: string, webhookId: string, key: Buffer): string {
  return sealText(secret, context(webhookId), key);
}

/** The clear secret; throws when the value was sealed under another key or for another webhook. */
export function openWebhookSecret(sealed: string, webhookId: string, key: Buffer): string {
  let secret: string | undefined;
  try {
    secret = openText(sealed, context(webhookId), key);
  } catch {
    throw new Error('webhook secret: unknown sealed format');
  }
  if (secret === undefined) throw new Error(`webhook ${webhookId}: its secret does not open under this WEBHOOK_SECRET_KEY`);
  return secret;
}
