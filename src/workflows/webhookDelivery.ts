import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities, DeliveryOutcome, DeliveryRetry } from '../activities';

export interface WebhookDeliveryInput {
  deliveryId: string;
  retry: DeliveryRetry;
}

/**
 * One webhook delivery: a single activity under Temporal's retry policy (PRODUCT.md part 4:
 * initial 1 min, coefficient 5, max interval 2 h, 5 attempts). Its own workflow, so the payment's
 * run can close while a receiver is still being retried, and operators see each delivery.
 */
export async function webhookDeliveryWorkflow({ deliveryId, retry }: WebhookDeliveryInput): Promise<DeliveryOutcome> {
  const { deliverWebhook } = proxyActivities<Activities>({
    // The HTTP call aborts at timeoutMs; the margin covers the database writes around it.
    startToCloseTimeout: retry.timeoutMs + 10_000,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: ['WebhookUrlRefused', 'DeliveryNotFound'],
    },
  });
  try {
    return await deliverWebhook(deliveryId, retry.timeoutMs, retry.maximumAttempts);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} failed after its retries`, 'WebhookDeliveryExhausted', String(err));
  }
}
