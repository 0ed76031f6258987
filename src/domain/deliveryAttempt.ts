/**
 * How one webhook delivery attempt is judged (docs/webhooks.md, "Retries"): a 2xx answer succeeds; any other
 * answer, or none, fails it, and the delivery stays pending while the retry policy has attempts left.
 */

/**
 * The series of attempts a delivery's event starts (the publication's first attempt, then its
 * retries, continued after a hand-over); a resend's series is named by its workflow id.
 */
export const ORIGINAL_SERIES = 'original';

/** The error an HTTP answer counts as, or null for a 2xx. Redirects are failures too: never followed. */
export function answerError(statusCode: number): string | null {
  return statusCode < 200 || statusCode >= 300 ? `receiver answered HTTP ${statusCode}` : null;
}

/**
 * The delivery's status after an attempt. `seriesAttempt`: this attempt's number in the retry
 * policy's series (1 = first); `maximumAttempts`: the policy's limit.
 */
export function statusAfterAttempt(failed: boolean, seriesAttempt: number, maximumAttempts: number): 'succeeded' | 'pending' | 'failed' {
  if (!failed) return 'succeeded';
  return seriesAttempt >= maximumAttempts ? 'failed' : 'pending';
}
