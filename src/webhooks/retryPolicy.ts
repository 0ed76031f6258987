/** How webhook deliveries are retried and where they run: pure functions of the configuration. */
import type { Config } from '../config';

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
