/**
 * Webhook delivery's two ways in (docs/webhooks.md, "Retries"): a publication's first attempt,
 * inline, and a series' attempts under Temporal's retry policy (the rest of the original series,
 * a hand-over's continuation, a resend, `payment.test`). Attempts themselves: ./webhookAttempt.ts.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { webhookSecretKey } from '../config';
import { DELIVERY_NOT_FOUND, WEBHOOK_URL_REFUSED } from '../domain/failures';
import type { PlannedDelivery } from '../db/projection';
import { openForSigning } from '../db/webhookConfigurations';
import { type DeliveryProgress, deliveryProgress, endSeries, loadDelivery } from '../db/webhookDeliveries';
import type { DeliveryRetry } from '../webhookRules/retryPolicy';
import { type AttemptDeps, attemptDelivery } from './webhookAttempt';

export type DeliveryOutcome = 'succeeded' | 'skipped';

/** Texts that name no URL or host: a receiver's status, a time-out, a system error code. */
const NAMES_NO_HOST =
  /^(receiver answered HTTP \d{3}|no answer within \d+ ms|[A-Z][A-Z0-9_]+|the receiver answered HTTP 410 Gone; configuration disabled)$/;

/**
 * A failed attempt as Temporal's history holds it: webhook URLs are client data that stays in
 * PostgreSQL (docs/architecture.md, "Personal data"), so a text that may name the host is replaced;
 * the delivery log keeps the whole reason.
 */
export function failureText(type: string, message: string): string {
  if (NAMES_NO_HOST.test(message)) return message;
  return type === WEBHOOK_URL_REFUSED
    ? 'the URL rules refused the webhook URL; the delivery log says why'
    : 'the attempt failed; the delivery log says why';
}

/** A series of attempts for one delivery: its name and its retry policy (for a continuation, what was left of it). */
export interface SeriesInput {
  deliveryId: string;
  series: string;
  retry: DeliveryRetry;
}

/**
 * How a delivery's inline first attempt ended — `done` (delivered, skipped, or failed for good),
 * `retry` (the workflow continues its series) or `deliver` (not attempted inline: the workflow
 * runs the whole series).
 */
export type FirstAttempt = 'done' | 'retry' | 'deliver';

/**
 * The longest WEBHOOK_TIMEOUT an inline first attempt waits for (the publication activity's
 * time-out leaves room for it); with a longer one, every attempt runs as a delivery activity.
 */
export const INLINE_ATTEMPT_MAX_TIMEOUT_MS = 30_000;

/**
 * The first attempt of one delivery, inline, with the rows the projection's statement returned:
 * never throws (an error leaves the delivery to the workflow's series), and never repeats an
 * attempt a publication retried after a crash already logged.
 */
export async function firstAttempt(deps: AttemptDeps, { delivery, webhook }: PlannedDelivery, retry: DeliveryRetry): Promise<FirstAttempt> {
  if (retry.timeoutMs > INLINE_ATTEMPT_MAX_TIMEOUT_MS) return 'deliver';
  if (delivery.attempts > 0) return delivery.status === 'pending' ? 'retry' : 'done';
  try {
    const loaded = { delivery, webhook: await openForSigning(deps.db, webhook, webhookSecretKey(deps.config)) };
    const result = await attemptDelivery(deps, loaded, {
      series: delivery.series ?? '',
      seriesAttempt: 1,
      maximumAttempts: retry.maximumAttempts,
      timeoutMs: retry.timeoutMs,
    });
    if (result.outcome === 'failed') {
      if (!result.retryable) deps.logger.warn({ delivery_id: delivery.id, error: result.message }, 'webhook delivery failed for good');
      return result.retryable && retry.maximumAttempts > 1 ? 'retry' : 'done';
    }
    return result.outcome === 'not-attempted' && result.status === 'pending' ? 'retry' : 'done';
  } catch (err) {
    deps.logger.warn({ delivery_id: delivery.id, err }, 'inline first delivery attempt not made; the retry series takes it');
    return 'retry';
  }
}

export function deliveryActivities(deps: AttemptDeps) {
  const { db, config } = deps;
  return {
    /**
     * One attempt of a series. Throws on failure so that Temporal's retry policy schedules the
     * next; returns without sending when the series no longer owns the delivery or the
     * configuration was deleted meanwhile.
     */
    async deliverWebhook({ deliveryId, series, retry }: SeriesInput): Promise<DeliveryOutcome> {
      const found = await loadDelivery(db, deliveryId, webhookSecretKey(config));
      if (!found) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} not found`, DELIVERY_NOT_FOUND);
      const result = await attemptDelivery(deps, found, {
        series,
        seriesAttempt: Context.current().info.attempt,
        maximumAttempts: retry.maximumAttempts,
        timeoutMs: retry.timeoutMs,
      });
      switch (result.outcome) {
        case 'succeeded':
        case 'skipped':
          return result.outcome;
        case 'not-attempted':
          return result.status === 'succeeded' ? 'succeeded' : 'skipped';
        case 'failed':
          throw result.retryable
            ? ApplicationFailure.retryable(failureText(result.type, result.message), result.type)
            : ApplicationFailure.nonRetryable(failureText(result.type, result.message), result.type);
      }
    },

    /** Where a delivery stands, for a series that continues it after a hand-over. */
    deliveryProgress: (deliveryId: string): Promise<DeliveryProgress | null> => deliveryProgress(db, deliveryId),

    /** A series that gave up without a final attempt frees the delivery for the next one. */
    endSeries: ({ deliveryId, series }: { deliveryId: string; series: string }): Promise<void> => endSeries(db, deliveryId, series),
  };
}
