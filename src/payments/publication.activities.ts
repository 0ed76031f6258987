/**
 * A transition's publication (docs/architecture.md, "How a transition flows"): the read model,
 * ledger, trail and the deliveries it owes in one statement; once it has committed, each delivery's
 * workflow is started on the webhooks task queue. No receiver is called here: the attempts run in
 * those workflows.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PROJECTION_REFUSED } from '../platform/failures.rules';
import { type HistoryEntry, type PaymentState } from './paymentTypes.rules';
import { isTerminal } from './payment.rules';
import { withPersonal } from './personalData.rules';
import { eraseMessages, findPersonal, wasRedacted } from './personalData.repository';
import { withDisputeTexts } from './disputeTexts.repository';
import { reasonHashKey } from '../platform/config';
import { transitionEnvelopes } from '../webhooks/webhookEnvelope.view';
import { isDataRefusal } from '../platform/database/dataErrors';
import { disableBacklogged } from '../webhooks/webhookConfigurations.repository';
import { projectAndPlan } from './projection.repository';
import { paymentTransitions, projectionFailures } from '../platform/lib/metrics';
import { chainsOf, firstSeriesStart } from '../webhooks/deliverySeries.rules';
import { startFirstSeries } from '../webhooks/deliveryRoad';
import { deliveryRetry, webhookTaskQueue } from '../webhooks/retrySchedule';
import type { ActivityResourcesWithClient } from '../platform/activityResources';

/** One delivery a transition owes, with its configuration's id; never its URL, which may carry a token. */
export interface DeliveryTarget {
  id: string;
  webhookId: string;
}

/** The deliveries a transition owes, their workflows started: the activity's result in the Temporal UI names them. */
export interface DeliveryPlan {
  deliveries: DeliveryTarget[];
}

export interface PublicationInput {
  payment: PaymentState;
  entry: HistoryEntry;
  requestId?: string;
}

export function publicationActivities(deps: ActivityResourcesWithClient) {
  const { db, config, logger } = deps;

  return {
    /**
     * The projection (src/payments/projection.repository.ts: idempotent, versioned; data PostgreSQL refuses is not
     * retryable) with the deliveries it owes, for the payment's run to start: the read model never
     * waits for a receiver.
     */
    async publishTransition({ payment: carried, entry, requestId }: PublicationInput): Promise<DeliveryPlan> {
      // The workflow carries ids and amounts; the personal data the API kept is read here.
      const payment = await withDisputeTexts(db, withPersonal(carried, await findPersonal(db, carried.id)));
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
      // Only a finished payment can be erased. An erasure that committed while this publication held
      // the personal data it had read: erase what it wrote; each series sends the stored body.
      if (isTerminal(payment.status) && (await wasRedacted(db, payment.id))) await eraseMessages(db, payment.id);
      const deliveries = planned.map((d) => ({ id: d.delivery.id, webhookId: d.webhook.id }));
      // Not yet attempted: a retried publication finds its deliveries' workflows already running, or ended.
      const chains = chainsOf(planned.filter((d) => d.delivery.attempts === 0 && d.delivery.status === 'pending'));
      // Each configuration's chain, its head's workflow started on the webhooks task queue under the
      // tenant's fairness key; a split's second delivery starts once the first's first attempt has ended.
      const scope = { accountId: payment.accountId, livemode: payment.livemode };
      await Promise.all(
        chains.map((head) =>
          startFirstSeries(deps.temporal, firstSeriesStart(head, scope, webhookTaskQueue(config), deliveryRetry(config)), { eager: true }),
        ),
      );
      return { deliveries };
    },

    /** A projection that failed for good: the metric operators alert on, and an error log. */
    reportProjectionFailure({ paymentId, version, error }: { paymentId: string; version: number; error: string }): Promise<void> {
      projectionFailures.inc();
      logger.error({ payment_id: paymentId, version, error }, 'read model projection failed for good; the payment continues in Temporal');
      return Promise.resolve();
    },
  };
}
