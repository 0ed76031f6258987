import { type ActivityOptions, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities, DeliveryOutcome, DeliveryRetry } from '../activities';

export interface WebhookDeliveryInput {
  deliveryId: string;
  retry: DeliveryRetry;
  /** A resend: attempts already made, so the log numbers the new series after them. */
  attemptBase?: number;
}

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
 * Temporal's retry policy (PRODUCT.md part 4: initial 1 min, coefficient 5, max interval 2 h,
 * 5 attempts).
 */
export async function webhookDeliveryWorkflow({ deliveryId, retry, attemptBase }: WebhookDeliveryInput): Promise<DeliveryOutcome> {
  const { deliverWebhook } = proxyActivities<Activities>(deliveryActivityOptions(retry));
  try {
    return await (attemptBase
      ? deliverWebhook(deliveryId, retry.timeoutMs, retry.maximumAttempts, attemptBase)
      : deliverWebhook(deliveryId, retry.timeoutMs, retry.maximumAttempts));
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} failed after its retries`, 'WebhookDeliveryExhausted', String(err));
  }
}
