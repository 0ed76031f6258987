/**
 * A transition's publication (docs/architecture.md, "How a transition flows"): the read model,
 * ledger, trail and the deliveries it owes in one statement, then each delivery's first attempt.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PROJECTION_REFUSED } from '../domain/failures';
import { type HistoryEntry, type PaymentState } from '../domain/paymentTypes';
import { isTerminal } from '../domain/payment';
import { withPersonal } from '../domain/personal';
import { eraseMessages, findPersonal, wasRedacted } from '../db/personal';
import { reasonHashKey } from '../config';
import { transitionEnvelopes } from '../views/webhookEnvelope';
import { isDataRefusal } from '../db/errors';
import { disableBacklogged } from '../db/webhookConfigurations';
import { type PlannedDelivery, projectAndPlan } from '../db/projection';
import { paymentTransitions, projectionFailures } from '../lib/metrics';
import { type DeliveryRetry, deliveryRetry, webhookTaskQueue } from '../webhookRules/retryPolicy';
import { type FirstAttempt, firstAttempt } from './delivery';
import type { AttemptDeps } from './webhookAttempt';

/**
 * One delivery a transition owes, with its configuration's id (named in the Temporal UI's activity
 * summary); never its URL, which may carry a token (docs/architecture.md, "Personal data").
 */
export interface DeliveryTarget {
  id: string;
  webhookId: string;
  /** The series its first attempt belongs to; the workflow's retries continue it. */
  series: string;
  firstAttempt: FirstAttempt;
}

/** The deliveries a transition owes, and how the workflow runs the rest of their series. */
export interface DeliveryPlan {
  deliveries: DeliveryTarget[];
  retry: DeliveryRetry;
  /** Deliveries have a task queue (and workers) of their own, so they never delay transitions. */
  taskQueue: string;
  /** How long a finished payment waits for its deliveries before handing them over (WEBHOOK_HANDOFF_AFTER). */
  handoffAfterMs: number;
}

export interface PublicationInput {
  payment: PaymentState;
  entry: HistoryEntry;
  requestId?: string;
}

/**
 * Each delivery's first attempt, concurrently across configurations but in the planned order within
 * one, so that a receiver subscribed to both of a split's events gets its refunded part first
 * (docs/webhooks.md). Answers in the planned order.
 */
async function firstAttemptsInOrder(
  planned: PlannedDelivery[],
  attempt: (d: PlannedDelivery) => Promise<FirstAttempt>,
): Promise<FirstAttempt[]> {
  const results: FirstAttempt[] = new Array<FirstAttempt>(planned.length);
  const byWebhook = new Map<string, number[]>();
  planned.forEach((d, i) => byWebhook.set(d.webhook.id, [...(byWebhook.get(d.webhook.id) ?? []), i]));
  await Promise.all(
    [...byWebhook.values()].map(async (indexes) => {
      for (const i of indexes) results[i] = await attempt(planned[i]);
    }),
  );
  return results;
}

export function publicationActivities(deps: AttemptDeps) {
  const { db, config, logger } = deps;
  return {
    /**
     * The projection (src/db/projection.ts: idempotent, versioned; data PostgreSQL refuses is not
     * retryable), then the first attempt of each delivery it owes, inline. Deliveries whose first
     * attempt failed are the workflow's to continue under the webhook retry policy.
     */
    async publishTransition({ payment: carried, entry, requestId }: PublicationInput): Promise<DeliveryPlan> {
      // The workflow carries ids and amounts; the personal data the API kept is read here.
      const payment = withPersonal(carried, await findPersonal(db, carried.id));
      const envelopes = transitionEnvelopes(payment, entry);
      let planned;
      try {
        planned = await projectAndPlan(db, payment, entry, envelopes, reasonHashKey(config));
      } catch (err) {
        if (isDataRefusal(err))
          throw ApplicationFailure.nonRetryable(`PostgreSQL refused the payment: ${(err as Error).message}`, PROJECTION_REFUSED);
        throw err;
      }
      if (Context.current().info.attempt === 1) paymentTransitions.inc({ event: entry.event });
      logger.info(
        { request_id: requestId, payment_id: payment.id, event: entry.event, status: payment.status, version: payment.version },
        'payment transition recorded',
      );
      // A configuration whose receiver cannot keep up stops taking deliveries; its events stay listed for recover.
      const backlogged = await disableBacklogged(
        db,
        planned.map((d) => d.webhook.id),
        config.MAX_PENDING_DELIVERIES_PER_WEBHOOK,
      );
      if (backlogged.length > 0)
        logger.warn({ webhook_ids: backlogged }, 'webhook configurations disabled: too many deliveries not yet ended');
      const retry = deliveryRetry(config);
      // Only a finished payment can be erased. An erasure that committed while this publication held
      // the personal data it had read: erase what it wrote, and let each series send the stored body.
      const erased = isTerminal(payment.status) && (await wasRedacted(db, payment.id));
      if (erased) await eraseMessages(db, payment.id);
      const firsts = erased
        ? planned.map((): FirstAttempt => 'deliver')
        : await firstAttemptsInOrder(planned, (d) => firstAttempt(deps, d, retry));
      return {
        deliveries: planned.map((d, i) => ({
          id: d.delivery.id,
          webhookId: d.webhook.id,
          series: d.delivery.series ?? '',
          firstAttempt: firsts[i],
        })),
        retry,
        taskQueue: webhookTaskQueue(config),
        handoffAfterMs: config.WEBHOOK_HANDOFF_AFTER,
      };
    },

    /** A projection that failed for good: the metric operators alert on, and an error log. */
    reportProjectionFailure({ paymentId, version, error }: { paymentId: string; version: number; error: string }): Promise<void> {
      projectionFailures.inc();
      logger.error({ payment_id: paymentId, version, error }, 'read model projection failed for good; the payment continues in Temporal');
      return Promise.resolve();
    },
  };
}
