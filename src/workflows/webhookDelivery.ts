/** The webhook delivery workflow: deliveries outside a payment's run, and the activity options every delivery uses. */
import { type ActivityOptions, ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities, DeliveryOutcome, DeliveryRetry } from '../activities';
import { continuedRetry } from '../webhooks/retryPolicy';

export interface WebhookDeliveryInput {
  deliveryId: string;
  retry: DeliveryRetry;
  /** A resend: attempts already made, so the log numbers the new series after them. */
  attemptBase?: number;
  /**
   * A finished payment handed this delivery over while it was being retried: the series goes on
   * where it stopped (the attempts it had left, at the intervals it had left), same delivery id.
   */
  continued?: boolean;
}

const { deliveryProgress } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumInterval: '10 seconds' } });

/** How a delivery activity runs: the HTTP time-out plus a margin, under the WEBHOOK_* retry policy. */
export function deliveryActivityOptions(retry: DeliveryRetry): ActivityOptions {
  return {
    // The HTTP call aborts at timeoutMs; the margin covers the database writes around it.
    startToCloseTimeout: retry.timeoutMs + 10_000,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: ['WebhookUrlRefused', 'DeliveryNotFound'],
    },
  };
}

/**
 * One webhook delivery outside a payment's run: `payment.test`, a resend, a recovery (and, for
 * payments recorded before side-effects-as-activities, every delivery). A single activity under
 * Temporal's retry policy (docs/webhooks.md, "Retries": initial 1 min, coefficient 5, max interval 2 h,
 * 5 attempts).
 */
export async function webhookDeliveryWorkflow({
  deliveryId,
  retry,
  attemptBase,
  continued,
}: WebhookDeliveryInput): Promise<DeliveryOutcome> {
  if (continued) return continueDelivery(deliveryId, retry);
  const { deliverWebhook } = proxyActivities<Activities>(deliveryActivityOptions(retry));
  try {
    return await (attemptBase
      ? deliverWebhook(deliveryId, retry.timeoutMs, retry.maximumAttempts, attemptBase)
      : deliverWebhook(deliveryId, retry.timeoutMs, retry.maximumAttempts));
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} failed after its retries`, 'WebhookDeliveryExhausted', String(err));
  }
}

/** The rest of a handed-over delivery's schedule: nothing if it ended meanwhile, else the attempts it had left. */
async function continueDelivery(deliveryId: string, retry: DeliveryRetry): Promise<DeliveryOutcome> {
  const progress = await deliveryProgress(deliveryId);
  if (!progress || progress.status !== 'pending') return 'skipped';
  const rest = continuedRetry(retry, progress.attempts);
  if (!rest) return 'skipped';
  const sinceLast = progress.lastAttemptAt === null ? 0 : Date.now() - progress.lastAttemptAt;
  if (rest.waitMs > sinceLast) await sleep(rest.waitMs - sinceLast);
  const { deliverWebhook } = proxyActivities<Activities>(deliveryActivityOptions(rest.retry));
  try {
    return await deliverWebhook(deliveryId, rest.retry.timeoutMs, rest.retry.maximumAttempts, progress.attempts);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} failed after its retries`, 'WebhookDeliveryExhausted', String(err));
  }
}
