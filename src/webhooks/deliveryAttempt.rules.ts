/**
 * How one webhook delivery attempt is judged (docs/webhooks.md, "Retries"): a 2xx answer succeeds; any other
 * answer, or none, fails it, and the delivery stays pending while the retry policy has attempts left.
 */

/**
 * The series of attempts a delivery's event starts (its workflow's first attempt, then its
 * retries); a resend's series is named `resend_…` (src/webhooks/deliveries.service.ts).
 */
export const ORIGINAL_SERIES = 'original';

/** The error an HTTP answer counts as, or null for a 2xx. Redirects are failures too: never followed. */
export function answerError(statusCode: number): string | null {
  return statusCode < 200 || statusCode >= 300 ? `receiver answered HTTP ${statusCode}` : null;
}

const REFUSED = 'refused: ';

/** The delivery log's error for an attempt the URL rules refused: the reason, for the client, may name the host. */
export const refusedError = (reason: string) => `${REFUSED}${reason}`;

/** The delivery log's error for an attempt that got no answer in time. */
export const timeoutError = (timeoutMs: number) => `no answer within ${timeoutMs} ms`;

const BUSY = 'endpoint busy: ';

/**
 * The delivery log's error for an attempt that found its endpoint full: nothing was sent, and
 * Temporal's retry policy makes the next attempt shortly (docs/webhooks.md, "No tenant slows another").
 */
export const busyError = (limit: number) => `${BUSY}${limit} attempts in flight (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT); nothing sent`;

/** A system or HTTP client error code (ECONNREFUSED, UND_ERR_SOCKET): names no host. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,40}$/;

/**
 * What the custody trail keeps of an attempt's error (docs/audit.md): a code, never the delivery
 * log's text, which may name the receiver's host or address; a leaf is never erased. null (none),
 * `url_refused`, `endpoint_busy` (nothing sent), `http_status` (the leaf's status_code says which), `timeout`, a system error code
 * as is, else `network_error`.
 */
export function attemptErrorCode(statusCode: number | null, error: string | null): string | null {
  if (error === null) return null;
  if (error.startsWith(REFUSED)) return 'url_refused';
  if (error.startsWith(BUSY)) return 'endpoint_busy';
  if (statusCode !== null) return 'http_status';
  if (/^no answer within \d+ ms$/.test(error)) return 'timeout';
  return ERROR_CODE.test(error) ? error : 'network_error';
}

/**
 * The delivery's status after an attempt. `seriesAttempt`: this attempt's number in the retry
 * policy's series (1 = first); `maximumAttempts`: the policy's limit.
 */
export function statusAfterAttempt(failed: boolean, seriesAttempt: number, maximumAttempts: number): 'succeeded' | 'pending' | 'failed' {
  if (!failed) return 'succeeded';
  return seriesAttempt >= maximumAttempts ? 'failed' : 'pending';
}
