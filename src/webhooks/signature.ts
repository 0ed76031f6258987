/** Webhook signatures: the X-Service-Signature HMAC and the Standard Webhooks headers, made and checked. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the configuration's secret (spec 6.2). */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Check an `X-Service-Signature` header against the raw request body, in constant time.
 * Pass the body exactly as received (a Buffer or the undecoded string), never a re-serialised object.
 */
export function verifyWebhookSignature(rawBody: string | Buffer, signature: string | undefined | null, secret: string): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(signWebhookBody(rawBody, secret), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** The Standard Webhooks key: the base64-decoded part after `whsec_`. */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` (Standard Webhooks v1). */
export function standardSignature(id: string, timestampSeconds: number, rawBody: string | Buffer, secret: string): string {
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSeconds}.`).update(rawBody).digest('base64');
  return `v1,${mac}`;
}

/**
 * The Standard Webhooks headers of one attempt: one signature per secret still valid (the new one
 * and, during a rotation's overlap, the previous one), space-separated.
 */
export function standardWebhookHeaders(
  id: string,
  rawBody: string | Buffer,
  secrets: readonly string[],
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(id, timestamp, rawBody, s)).join(' '),
  };
}

export type WebhookVerdict = { ok: true; scheme: 'standard-webhooks' | 'x-service-signature' } | { ok: false; reason: string };

export interface VerifyOptions {
  /** Seconds `webhook-timestamp` may differ from now (default 5 minutes). */
  toleranceSeconds?: number;
  now?: number;
  /**
   * Accept a delivery signed by `X-Service-Signature` alone. Off by default: that scheme signs the
   * body only, so a captured delivery stripped of its `webhook-*` headers would verify forever.
   */
  allowBodyOnlySignature?: boolean;
}

/**
 * Verify a delivery by its Standard Webhooks headers, with a tolerance on `webhook-timestamp`: the
 * signed timestamp stops a captured delivery being replayed later. Without `webhook-signature` it is
 * refused, unless the caller opts into the body-only `X-Service-Signature` (`allowBodyOnlySignature`).
 * Header names are matched case-insensitively.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  { toleranceSeconds = 300, now = Date.now(), allowBodyOnlySignature = false }: VerifyOptions = {},
): WebhookVerdict {
  const header = (name: string) => {
    const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
    const value = entry?.[1];
    return Array.isArray(value) ? value[0] : value;
  };
  const signatures = header('webhook-signature');
  if (signatures) {
    const id = header('webhook-id');
    const timestamp = Number(header('webhook-timestamp'));
    if (!id || !Number.isInteger(timestamp)) return { ok: false, reason: 'webhook-id or webhook-timestamp missing' };
    if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return { ok: false, reason: 'webhook-timestamp outside the tolerance' };
    const expected = Buffer.from(standardSignature(id, timestamp, rawBody, secret));
    const match = signatures.split(' ').some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    return match ? { ok: true, scheme: 'standard-webhooks' } : { ok: false, reason: 'no webhook-signature matches' };
  }
  if (!allowBodyOnlySignature)
    return { ok: false, reason: 'webhook-signature missing (the body-only X-Service-Signature is not accepted)' };
  return verifyWebhookSignature(rawBody, header('x-service-signature'), secret)
    ? { ok: true, scheme: 'x-service-signature' }
    : { ok: false, reason: 'X-Service-Signature does not match' };
}
