/** How webhook deliveries are retried and where they run: pure functions of the configuration. */
import type { Config } from '../platform/config';

/** Retry settings of webhook delivery, from the WEBHOOK_* configuration. */
export interface DeliveryRetry {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
  timeoutMs: number;
}

/** The task queue of webhook deliveries, beside the payments' own. */
export function webhookTaskQueue(config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>): string {
  return `${config.TEMPORAL_TASK_QUEUE}-webhooks`;
}

export function deliveryRetry(config: Config): DeliveryRetry {
  return {
    initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_INTERVAL,
    backoffCoefficient: config.WEBHOOK_RETRY_BACKOFF,
    maximumIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL,
    maximumAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    timeoutMs: config.WEBHOOK_TIMEOUT,
  };
}

/** The wait after attempt `n` (1-based) of a series, as Temporal's retry policy computes it. */
function intervalAfter(retry: DeliveryRetry, n: number): number {
  return Math.min(retry.initialIntervalMs * retry.backoffCoefficient ** (n - 1), retry.maximumIntervalMs);
}

/**
 * The rest of a delivery's schedule after `made` attempts, for a series that continues it (a
 * repair's, a retry-now's, one after a full endpoint's turn-aways): the wait before the next attempt, and a policy whose intervals
 * and attempts are the ones the first series had left. Undefined when no attempt is left.
 */
export function continuedRetry(retry: DeliveryRetry, made: number): { waitMs: number; retry: DeliveryRetry } | undefined {
  if (made >= retry.maximumAttempts) return undefined;
  if (made === 0) return { waitMs: 0, retry };
  return {
    waitMs: intervalAfter(retry, made),
    retry: { ...retry, initialIntervalMs: intervalAfter(retry, made + 1), maximumAttempts: retry.maximumAttempts - made },
  };
}

/**
 * When a pending delivery's next attempt is due by the retry policy, for the delivery log: the
 * last attempt's time plus the wait after it; null when it is not pending or no attempt is left.
 */
export function nextAttemptAt(retry: DeliveryRetry, status: string, last: { attempt: number; at: Date } | undefined): Date | null {
  if (status !== 'pending' || !last || last.attempt >= retry.maximumAttempts) return null;
  return new Date(last.at.getTime() + intervalAfter(retry, last.attempt));
}
