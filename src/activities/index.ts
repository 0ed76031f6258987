/**
 * The activities, the workflows' only way out: project a transition into the read model and plan its
 * deliveries (with their inline first attempts), deliver a webhook, sign the custody trail's tree
 * head, verify the ledger.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { auditSigningKey, type Config, webhookSecretKey } from '../config';
import { AuditLogInconsistent, signTreeHead } from '../db/audit';
import { signEd25519 } from '../lib/ed25519';
import type { HistoryEntry, PaymentEvent, PaymentState } from '../domain/payment';
import { paymentView } from '../domain/paymentView';
import { envelope } from '../domain/webhookEnvelope';
import { type PlannedDelivery, planDeliveries, projectAndPlan, projectPayment } from '../db/projection';
import { openForSigning } from '../db/webhookConfigurations';
import { ledgerReport, verifyLedger } from '../db/ledger';
import { queryOrUndefined } from '../lib/workflowQuery';
import { isDataRefusal } from '../db/errors';
import { deliveryProgress } from '../db/webhookDeliveries';
import type { Logger } from '../lib/logger';
import { ledgerInvariantViolations, paymentTransitions, projectionFailures } from '../lib/metrics';
import { type DeliveryRetry, deliveryRetry, webhookTaskQueue } from '../webhooks/retryPolicy';
import { attemptDelivery } from './webhookAttempt';

export { type DeliveryRetry, deliveryRetry, webhookTaskQueue };

export interface ActivityDeps {
  db: Knex;
  config: Config;
  logger: Logger;
}

export type DeliveryOutcome = 'succeeded' | 'skipped' | 'refused';

/** One delivery a transition owes, with its receiver (named in the Temporal UI's activity summary). */
export interface DeliveryTarget {
  id: string;
  /** Absent in plans made before deliveries named their receivers. */
  url?: string;
  webhookId?: string;
}

/** The deliveries a transition owes, and how the workflow runs them. */
export interface DeliveryPlan {
  deliveryIds: string[];
  deliveries?: DeliveryTarget[];
  retry: DeliveryRetry;
  /** Deliveries have a task queue (and workers) of their own, so they never delay transitions. */
  taskQueue: string;
  /** How long a finished payment waits for its deliveries before handing them over (WEBHOOK_HANDOFF_AFTER). */
  handoffAfterMs?: number;
  /**
   * Plans of `publishTransition` only: how each delivery's inline first attempt ended — `done`
   * (delivered, skipped, or failed for good), `retry` (the workflow continues its series) or
   * `deliver` (not attempted inline: the workflow runs the whole series).
   */
  firstAttempts?: Record<string, FirstAttempt>;
}

export type FirstAttempt = 'done' | 'retry' | 'deliver';

/**
 * The longest WEBHOOK_TIMEOUT an inline first attempt waits for (the publication activity's
 * time-out leaves room for it); with a longer one, every attempt runs as a delivery activity.
 */
export const INLINE_ATTEMPT_MAX_TIMEOUT_MS = 30_000;

export function createActivities({ db, config, logger }: ActivityDeps) {
  /**
   * Project the payment and its history entry into the read model, the ledger and the trail, and
   * record the webhook deliveries the entry owes, in one statement (src/db/projection.ts:
   * idempotent, versioned). Data PostgreSQL refuses can never succeed: not retryable.
   */
  async function project(state: PaymentState, entry: HistoryEntry, requestId?: string): Promise<PlannedDelivery[]> {
    const body = envelope(entry.event, entry.at, paymentView(state), state.version);
    let planned: PlannedDelivery[];
    try {
      planned = await projectAndPlan(db, state, entry, body);
    } catch (err) {
      if (isDataRefusal(err))
        throw ApplicationFailure.nonRetryable(`PostgreSQL refused the payment: ${(err as Error).message}`, 'ProjectionRefused');
      throw err;
    }
    if (Context.current().info.attempt === 1) paymentTransitions.inc({ event: entry.event });
    logger.info(
      { request_id: requestId, payment_id: state.id, event: entry.event, status: state.status, version: state.version },
      'payment transition recorded',
    );
    return planned;
  }

  /** The plan the workflow reads: each delivery with its receiver, and how to run the rest. */
  const planOf = (planned: PlannedDelivery[]): DeliveryPlan => {
    const deliveries = planned.map((d) => ({ id: d.delivery.id, url: d.webhook.url, webhookId: d.webhook.id }));
    return {
      deliveryIds: deliveries.map((d) => d.id),
      deliveries,
      retry: deliveryRetry(config),
      taskQueue: webhookTaskQueue(config),
      handoffAfterMs: config.WEBHOOK_HANDOFF_AFTER,
    };
  };

  /**
   * The first attempt of one delivery, inline, with the rows the projection's statement returned:
   * never throws (an error leaves the delivery to the workflow's series, which re-checks it), and
   * never repeats an attempt already logged.
   */
  async function firstAttempt({ delivery, webhook }: PlannedDelivery, retry: DeliveryRetry): Promise<FirstAttempt> {
    if (retry.timeoutMs > INLINE_ATTEMPT_MAX_TIMEOUT_MS) return 'deliver';
    try {
      const loaded = { delivery, webhook: await openForSigning(db, webhook, webhookSecretKey(config)) };
      const result = await attemptDelivery(
        { db, config, logger },
        delivery.id,
        {
          timeoutMs: retry.timeoutMs,
          seriesAttempt: 1,
          maximumAttempts: retry.maximumAttempts,
          attemptBase: 0,
          only: 'first',
        },
        loaded,
      );
      if (result.outcome === 'failed') {
        if (!result.retryable) logger.warn({ delivery_id: delivery.id, error: result.message }, 'webhook delivery failed for good');
        return result.retryable && retry.maximumAttempts > 1 ? 'retry' : 'done';
      }
      if (result.outcome === 'not-attempted') return result.status === 'pending' ? 'retry' : 'done';
      return 'done';
    } catch (err) {
      logger.warn({ delivery_id: delivery.id, err }, 'inline first delivery attempt not made; the retry series takes it');
      return 'retry';
    }
  }

  return {
    /** Before FIRST_DELIVERY_INLINE: the projection and the plan; every attempt a delivery activity. */
    async projectTransition(state: PaymentState, entry: HistoryEntry, requestId?: string): Promise<DeliveryPlan> {
      return planOf(await project(state, entry, requestId));
    },

    /**
     * A transition's publication in one activity (docs/webhooks.md): the projection, then the first
     * attempt of each delivery it owes, inline. Deliveries whose first attempt failed are the
     * workflow's to continue under the webhook retry policy, same delivery id, attempts carried over.
     */
    async publishTransition(state: PaymentState, entry: HistoryEntry, requestId?: string): Promise<DeliveryPlan> {
      const planned = await project(state, entry, requestId);
      const plan = planOf(planned);
      const outcomes = await Promise.all(planned.map((d) => firstAttempt(d, plan.retry)));
      return { ...plan, firstAttempts: Object.fromEntries(planned.map((d, i) => [d.delivery.id, outcomes[i]])) };
    },

    /**
     * The schedule's tree head: sequence the leaves waiting for a position and sign the new head,
     * never one the stored tree cannot prove consistent with the previous head.
     */
    async signTreeHead(): Promise<{ treeSize: number; timestamp: string }> {
      const key = auditSigningKey(config);
      try {
        const head = await signTreeHead(
          db,
          (message) => signEd25519(key, message),
          () => new Date(),
        );
        logger.info({ tree_size: head.treeSize, root_hash: head.rootHash.toString('base64') }, 'audit tree head signed');
        return { treeSize: head.treeSize, timestamp: head.timestamp };
      } catch (err) {
        if (err instanceof AuditLogInconsistent) {
          logger.error({ err }, 'audit log inconsistent with its last signed head; no head signed (run npm run audit:verify)');
          throw ApplicationFailure.nonRetryable(err.message, 'AuditLogInconsistent');
        }
        throw err;
      }
    },

    /**
     * Check every ledger invariant (docs/money.md), open payments against their workflow's own state
     * (queried with the worker's client); the count is the metric operators alert on.
     */
    async verifyLedgerInvariants(accountId?: string): Promise<{ violations: number; report: string[] }> {
      const { client } = Context.current();
      const violations = await verifyLedger(db, (id) => queryOrUndefined<PaymentState>(client, id, 'getPayment'), accountId);
      ledgerInvariantViolations.set(violations.length);
      const report = ledgerReport(violations);
      if (violations.length) logger.error({ violations: violations.length }, report);
      else logger.info('ledger verified: every invariant holds');
      return { violations: violations.length, report: report.split('\n').slice(0, 50) };
    },

    /** Where a delivery stands, for a series that continues it (webhookDeliveryWorkflow, `continued`). */
    async deliveryProgress(deliveryId: string): Promise<{ status: string; attempts: number; lastAttemptAt: number | null } | null> {
      return deliveryProgress(db, deliveryId);
    },

    /** A projection that failed for good: the metric operators alert on, and an error log. */
    reportProjectionFailure(paymentId: string, version: number, error: string): Promise<void> {
      projectionFailures.inc();
      logger.error({ payment_id: paymentId, version, error }, 'read model projection failed for good; the payment continues in Temporal');
      return Promise.resolve();
    },

    /** Before side-effects-as-activities: the projection alone, as a local activity. */
    async recordTransition(state: PaymentState, entry: HistoryEntry, requestId?: string): Promise<void> {
      await projectPayment(db, state, entry);
      if (Context.current().info.attempt === 1) paymentTransitions.inc({ event: entry.event });
      logger.info(
        { request_id: requestId, payment_id: state.id, event: entry.event, status: state.status, version: state.version },
        'payment transition recorded',
      );
    },

    /** Record the deliveries an event owes to the account's subscribed configurations. */
    async planWebhookDeliveries(
      state: PaymentState,
      event: PaymentEvent,
      timestamp: string,
    ): Promise<{ deliveryIds: string[]; retry: DeliveryRetry }> {
      const body = envelope(event, timestamp, paymentView(state), state.version);
      const planned = await planDeliveries(db, { accountId: state.accountId, livemode: state.livemode }, body, state.version);
      return { deliveryIds: planned.map((d) => d.id), retry: deliveryRetry(config) };
    },

    /**
     * One delivery attempt. Throws on failure so that Temporal's retry policy schedules the next;
     * returns without sending when the configuration was deleted meanwhile. `continuing`: a series
     * after a transition's inline first attempt — numbered after the attempts logged, and only while
     * the delivery is still pending.
     */
    async deliverWebhook(
      deliveryId: string,
      timeoutMs: number,
      maximumAttempts: number,
      attemptBase = 0,
      continuing = false,
    ): Promise<DeliveryOutcome> {
      // A resend numbers its series after the attempts already logged; the retry policy counts its own.
      const seriesAttempt = Context.current().info.attempt;
      const result = await attemptDelivery({ db, config, logger }, deliveryId, {
        timeoutMs,
        seriesAttempt,
        maximumAttempts,
        attemptBase: continuing ? 'logged' : attemptBase,
        only: continuing ? 'pending' : seriesAttempt > 1 ? 'unless-delivered' : 'always',
      });
      switch (result.outcome) {
        case 'succeeded':
        case 'skipped':
          return result.outcome;
        case 'not-attempted':
          return result.status === 'succeeded' ? 'succeeded' : 'skipped';
        case 'failed':
          throw result.retryable
            ? ApplicationFailure.retryable(result.message, result.type)
            : ApplicationFailure.nonRetryable(result.message, result.type);
      }
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
