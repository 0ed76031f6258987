/**
 * Webhook delivery's one activity (docs/webhooks.md, "One road"): an attempt of a delivery's series,
 * every attempt of every series under Temporal's retry policy on the webhooks task queue. The
 * attempt itself: ./webhookAttempt.ts.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { webhookSecretKey } from '../platform/config';
import { DELIVERY_NOT_FOUND, WEBHOOK_URL_REFUSED } from '../platform/failures.rules';
import { type DeliveryProgress, deliveryProgress, endSeries, loadDelivery } from './webhookDeliveries.repository';
import { releaseLease, takeLease } from './endpointLeases.repository';
import { DELIVERY_ACTIVITY_MARGIN_MS, ENDPOINT_TURN_SIGNAL, ENDPOINT_WAKE_MS } from './deliverySeries.rules';
import { EndpointTurns } from './endpointTurns.activities';
import type { DeliveryRetry } from './retrySchedule';
import { attemptDelivery } from './attempt.activities';
import { type ChainedDelivery, startFirstSeries } from './seriesStart.activities';
import type { ActivityResourcesWithClient } from '../platform/activityResources';

export type DeliveryOutcome = 'succeeded' | 'skipped';

/**
 * The endpoint had WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight: nothing was sent, and
 * `attempt` (the series' attempt that found it so) is for the workflow to schedule again after a wait.
 */
export interface EndpointBusy {
  busy: number;
}

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

/** A series of attempts for one delivery (src/webhooks/webhookDelivery.workflow.ts), under `retry`. */
export interface SeriesInput {
  deliveryId: string;
  series: string;
  retry: DeliveryRetry;
  /** The attempts the log held when this series started: the series' attempt n is the log's base + n. */
  base?: number;
  /** The same transition's later deliveries to the same configuration, started once this first attempt ended. */
  then?: ChainedDelivery[];
  /** Handed over by a finished payment's run: the series goes on after the attempts the log holds. */
  resumed?: true;
}

export function deliveryActivities(deps: ActivityResourcesWithClient) {
  const { db, config, temporal, logger } = deps;

  const turns = new EndpointTurns();

  /**
   * The endpoint's longest waiter in the durable line tries now rather than at its fallback timer;
   * a waiter no signal reaches leaves the line, and the next is woken instead.
   */
  async function wakeNext(webhookId: string, next: { deliveryId: string; run: string } | undefined): Promise<void> {
    if (!next) return;
    try {
      await temporal.workflow.getHandle(next.run).signal(ENDPOINT_TURN_SIGNAL, { deliveryId: next.deliveryId });
    } catch (err) {
      // Its run has ended, or Temporal is out of reach: the waiter's own timer wakes it.
      logger.warn({ delivery_id: next.deliveryId, error: String(err) }, 'could not wake a delivery waiting for its endpoint');
      await wakeNext(webhookId, await releaseLease(db, next.deliveryId, webhookId, ENDPOINT_WAKE_MS));
    }
  }

  /**
   * A lease on the endpoint for as long as the activity may run: at once, else after a moment's
   * wait in the attempt, else the delivery joins the endpoint's durable line and false is returned.
   */
  async function lease(deliveryId: string, webhookId: string, leaseMs: number, run: string): Promise<boolean> {
    const request = { deliveryId, webhookId, limit: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, leaseMs };
    // Without a moment's wait, one statement takes the lease or joins the line.
    if (config.WEBHOOK_ENDPOINT_WAIT <= 0) return takeLease(db, { ...request, run });
    return (
      (await takeLease(db, request)) ||
      (await turns.wait(webhookId, request.limit, () => takeLease(db, request), config.WEBHOOK_ENDPOINT_WAIT)) ||
      (await takeLease(db, { ...request, run }))
    );
  }

  /** The attempt's exchange with the receiver ended: its lease is free, and the durable line's first waiter not yet woken is woken. */
  async function giveBack(deliveryId: string, webhookId: string): Promise<void> {
    const next = await releaseLease(db, deliveryId, webhookId, ENDPOINT_WAKE_MS);
    turns.ended(webhookId);
    await wakeNext(webhookId, next);
  }

  return {
    /**
     * One attempt of a series. Throws on failure so that Temporal's retry policy schedules the
     * next; returns without sending when the series no longer owns the delivery or the
     * configuration was deleted meanwhile.
     */
    async deliverWebhook({ deliveryId, series, retry, base, then }: SeriesInput): Promise<DeliveryOutcome | EndpointBusy> {
      const found = await loadDelivery(db, deliveryId, webhookSecretKey(config));
      if (!found) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} not found`, DELIVERY_NOT_FOUND);
      const seriesAttempt = Context.current().info.attempt;
      // An endpoint that stays full sends nothing: the series' workflow waits for its turn on a
      // durable timer, holding no slot. Series of runs recorded before the one road (no `base`)
      // cannot wait so, and take no lease.
      const leased = base !== undefined;
      if (leased) {
        const leaseMs = retry.timeoutMs + DELIVERY_ACTIVITY_MARGIN_MS;
        const run = Context.current().info.workflowExecution?.workflowId ?? deliveryId;
        if (!(await lease(deliveryId, found.webhook.id, leaseMs, run))) return { busy: seriesAttempt };
      }
      // The lease goes back as soon as the receiver has answered (before the attempt is recorded), or when the attempt ends.
      let held = leased;
      const answered = async () => {
        if (!held) return;
        held = false;
        // A lease that cannot be given back expires with the activity's time: the attempt itself stands.
        await giveBack(deliveryId, found.webhook.id).catch((err: unknown) =>
          logger.warn({ delivery_id: deliveryId, error: String(err) }, 'could not give back an endpoint lease'),
        );
      };
      let result;
      try {
        result = await attemptDelivery(deps, found, {
          answered,
          series,
          seriesAttempt,
          // The log numbers this attempt as the Temporal UI does, after the attempts before the series.
          logAttempt: (base ?? 0) + seriesAttempt,
          maximumAttempts: retry.maximumAttempts,
          timeoutMs: retry.timeoutMs,
        });
      } finally {
        await answered();
      }
      // The next delivery of the chain once this one's attempt has ended (again on a retry: started once).
      if (then?.length) {
        const [next, ...rest] = then;
        const scope = { accountId: found.webhook.account_id, livemode: found.webhook.livemode };
        await startFirstSeries(temporal, config, scope, rest.length > 0 ? { ...next, then: rest } : next);
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

    /** Where a delivery stands, for a series that continues it after a hand-over (runs started before the one road). */
    deliveryProgress: (deliveryId: string): Promise<DeliveryProgress | null> => deliveryProgress(db, deliveryId),

    /** A series that gave up without a final attempt frees the delivery for the next one. */
    endSeries: ({ deliveryId, series }: { deliveryId: string; series: string }): Promise<void> => endSeries(db, deliveryId, series),
  };
}
