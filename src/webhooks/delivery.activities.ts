/**
 * Webhook delivery's one activity (docs/webhooks.md, "One road"): an attempt of a delivery's series,
 * every attempt of every series under Temporal's retry policy on the webhooks task queue. The
 * attempt itself: ./webhookAttempt.ts.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { webhookSecretKey } from '../platform/config';
import { DELIVERY_NOT_FOUND, WEBHOOK_ENDPOINT_BUSY, WEBHOOK_URL_REFUSED } from '../platform/failures.rules';
import { endSeries, loadDelivery } from './webhookDeliveries.repository';
import { releaseLease, takeLease } from './endpointLeases.repository';
import { type ChainedDelivery, DELIVERY_ACTIVITY_MARGIN_MS, endpointBusyDelayMs } from './deliverySeries.rules';
import { busyError } from './deliveryAttempt.rules';
import { recordAttempt } from './attemptLog.repository';
import type { DeliveryRetry } from './retrySchedule';
import { attemptDelivery } from './attempt.activities';
import type { ActivityResourcesWithClient } from '../platform/activityResources';

export type DeliveryOutcome = 'succeeded' | 'skipped';

/** Texts that name no URL or host: a receiver's status, a time-out, a system error code. */
const NAMES_NO_HOST =
  /^(receiver answered HTTP \d{3}|no answer within \d+ ms|[A-Z][A-Z0-9_]+|the receiver answered HTTP 410 Gone; configuration disabled|endpoint busy: .*)$/;

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

/** A delivery workflow's input (src/webhooks/webhookDelivery.workflow.ts): its first series of attempts, under `retry`. */
export interface SeriesInput {
  deliveryId: string;
  series: string;
  retry: DeliveryRetry;
  /** The attempts the log held when this series started: the series' attempt n is the log's base + n. */
  base?: number;
  /** The same transition's later deliveries to the same configuration, each started once the one before made its first attempt. */
  then?: ChainedDelivery[];
  /** For the Temporal UI: the event and the configuration's id (never its URL). */
  label?: string;
}

export function deliveryActivities(deps: ActivityResourcesWithClient) {
  const { db, config, logger } = deps;

  /** The attempt's exchange with the receiver ended: its lease is free at once. */
  async function giveBack(deliveryId: string, webhookId: string): Promise<void> {
    // A lease that cannot be given back expires with the activity's time: the attempt itself stands.
    await releaseLease(db, deliveryId, webhookId).catch((err: unknown) =>
      logger.warn({ delivery_id: deliveryId, error: String(err) }, 'could not give back an endpoint lease'),
    );
  }

  return {
    /**
     * One attempt of a series. Throws on failure so that Temporal's retry policy schedules the
     * next; returns without sending when the series no longer owns the delivery or the
     * configuration was deleted meanwhile.
     */
    async deliverWebhook({ deliveryId, series, retry, base }: SeriesInput): Promise<DeliveryOutcome> {
      const found = await loadDelivery(db, deliveryId, webhookSecretKey(config));
      if (!found) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} not found`, DELIVERY_NOT_FOUND);
      const seriesAttempt = Context.current().info.attempt;
      // A full endpoint (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight) sends nothing: the
      // attempt is logged as busy, with its number, and Temporal's retry policy makes the next one
      // after a short delay (docs/webhooks.md, "No tenant slows another"). An attempt whose series no
      // longer owns the delivery sends nothing either way (./attempt.activities.ts) and takes no lease.
      const leased = found.delivery.series === series && found.delivery.status === 'pending';
      const logAttempt = (base ?? 0) + seriesAttempt;
      if (leased) {
        const limit = config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT;
        const leaseMs = retry.timeoutMs + DELIVERY_ACTIVITY_MARGIN_MS;
        const lease = await takeLease(db, { deliveryId, webhookId: found.webhook.id, limit, leaseMs });
        if (!lease.taken) {
          const error = busyError(limit);
          await recordAttempt(db, found, { at: new Date(), statusCode: null, durationMs: 0, error }, 'pending', logAttempt);
          throw ApplicationFailure.create({
            message: error,
            type: WEBHOOK_ENDPOINT_BUSY,
            // About as long as the endpoint's oldest attempt in flight has run, longer after each
            // turn-away, and spread, so that the attempts it turned away do not all come back at once.
            nextRetryDelay: Math.round(endpointBusyDelayMs(logAttempt, lease.oldestInFlightMs) * (1 + Math.random())),
          });
        }
      }
      // The lease goes back as soon as the receiver has answered (before the attempt is recorded), or when the attempt ends.
      let held = leased;
      const answered = async () => {
        if (!held) return;
        held = false;
        await giveBack(deliveryId, found.webhook.id);
      };
      let result;
      try {
        result = await attemptDelivery(deps, found, {
          answered,
          series,
          seriesAttempt,
          // The log numbers this attempt as the Temporal UI does, after the attempts before the series.
          logAttempt,
          maximumAttempts: retry.maximumAttempts,
          timeoutMs: retry.timeoutMs,
        });
      } finally {
        await answered();
      }
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

    /** A series that gave up without a final attempt frees the delivery for the next one. */
    endSeries: ({ deliveryId, series }: { deliveryId: string; series: string }): Promise<void> => endSeries(db, deliveryId, series),
  };
}
