/**
 * Values sealed at rest: AES-256-GCM under a 32-byte key, a fresh 96-bit nonce per value, and a
 * context as additional data naming what the value is and whose (a ciphertext copied onto another
 * row, or into another column, does not open). Stored as `v1.<nonce>.<ciphertext>.<tag>`, each
 * part base64url. Webhook secrets (src/webhooks/secretBox.ts) and bank account numbers use it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export function sealText(text: string, context: string, key: Buffer): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return [VERSION, nonce, ciphertext, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The clear text, or undefined when the value was sealed under another key or context; throws on a value of another format. */
export function openText(sealed: string, context: string, key: Buffer): string | undefined {
  const parts = sealed.split('.');
  const [version, nonce, ciphertext, tag] = parts;
  if (parts.length !== 4 || version !== VERSION || !nonce || !tag) throw new Error('unknown sealed format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

const bankAccountContext = (bankAccountId: string) => `bank-account-number:${bankAccountId}`;

/** A bank account's full number (its canonical text, src/payouts/bankAccounts.rules.ts) sealed for its row. */
export function sealBankAccountNumber(canonicalNumber: string, bankAccountId: string, key: Buffer): string {
  return sealText(canonicalNumber, bankAccountContext(bankAccountId), key);
}

/** The full number back; throws when it was sealed under another key or for another bank account. */
export function openBankAccountNumber(sealed: string, bankAccountId: string, key: Buffer): string {
  const text = openText(sealed, bankAccountContext(bankAccountId), key);
  if (text === undefined) throw new Error(`bank account ${bankAccountId}: its number does not open under this key`);
  return text;
}
