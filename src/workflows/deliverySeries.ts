/**
 * A delivery's series (docs/webhooks.md, "One road"): the one workflow every attempt runs in —
 * first, retry, resend, recover, test — started with the delivery's id on the webhooks task queue
 * (src/domain/deliverySeries.ts).
 */
import { type ActivityOptions, ApplicationFailure, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities, DeliveryOutcome, DeliveryRetry, SeriesInput } from '../activities';
import { continuedRetry } from '../webhookRules/retryPolicy';
import { FINAL_DELIVERY_FAILURES, WEBHOOK_DELIVERY_EXHAUSTED } from '../domain/failures';

/** As src/activities/delivery.ts's DELIVERY_ACTIVITY_MARGIN_MS: the lease an attempt holds is as long as its activity may run. */
const DELIVERY_ACTIVITY_MARGIN_MS = 10_000;

/** Waits for a turn at a full endpoint: from 1 s, doubling, at most 30 s (durable timers, no worker slot held). */
const BUSY_WAIT_MS = { initial: 1_000, max: 30_000 };

// A series that gave up without a final attempt frees its delivery.
const { endSeries } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/** How a delivery activity runs: the HTTP time-out plus a margin, under the WEBHOOK_* retry policy. */
export function deliveryActivityOptions(retry: DeliveryRetry): ActivityOptions {
  return {
    // The HTTP call aborts at timeoutMs; the margin covers the database writes around it.
    startToCloseTimeout: retry.timeoutMs + DELIVERY_ACTIVITY_MARGIN_MS,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: FINAL_DELIVERY_FAILURES,
    },
  };
}

/** A series that ended without a success: the delivery log holds every attempt; the delivery is free for a resend. */
export async function gaveUp(deliveryId: string, series: string, err: unknown): Promise<void> {
  log.warn('webhook delivery series ended without a success', { deliveryId, series, error: String(err) });
  await endSeries({ deliveryId, series });
}

/**
 * A delivery's series, the one road of every attempt (first, retry, resend, recover, test): one
 * activity under Temporal's retry policy (docs/webhooks.md, "Retries": initial 1 min, coefficient
 * 5, max interval 2 h, 5 attempts), so the attempt the Temporal UI shows is the log's.
 */
export async function webhookDeliveryWorkflow(input: SeriesInput): Promise<DeliveryOutcome> {
  let { retry, base } = input;
  for (let waits = 0; ; waits++) {
    const { deliverWebhook } = proxyActivities<Activities>(deliveryActivityOptions(retry));
    let result;
    try {
      result = await deliverWebhook({ ...input, retry, base });
    } catch (err) {
      await gaveUp(input.deliveryId, input.series, err);
      throw ApplicationFailure.nonRetryable(
        `delivery ${input.deliveryId} failed after its retries`,
        WEBHOOK_DELIVERY_EXHAUSTED,
        String(err),
      );
    }
    if (typeof result === 'string') return result;
    // The endpoint was full at the series' attempt `result.busy`: nothing sent. After a wait, the
    // same attempt and those left, numbered on in the log.
    const made = result.busy - 1;
    const rest = continuedRetry(retry, made);
    if (!rest) return 'skipped';
    await sleep(Math.min(BUSY_WAIT_MS.initial * 2 ** waits, BUSY_WAIT_MS.max));
    retry = rest.retry;
    base = (base ?? 0) + made;
  }
}
