import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the configuration's secret. */
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
