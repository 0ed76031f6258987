/**
 * The activities, the workflows' only way out: project a transition into the read model and plan its
 * deliveries, deliver one webhook attempt, sign the custody trail's tree head, verify the ledger.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { auditSigningKey, webhookSecretKey, type Config } from '../config';
import { AuditLogInconsistent, signTreeHead } from '../db/audit';
import { signEd25519 } from '../lib/ed25519';
import type { HistoryEntry, PaymentEvent, PaymentState } from '../domain/payment';
import { paymentView } from '../domain/paymentView';
import { envelope } from '../domain/webhookEnvelope';
import { answerError, statusAfterAttempt } from '../domain/deliveryAttempt';
import { projectPayment } from '../db/payments';
import { ledgerReport, verifyLedger } from '../db/ledger';
import { queryOrUndefined } from '../lib/workflowQuery';
import { isDataRefusal } from '../db/errors';
import { disableWebhook } from '../db/webhookConfigurations';
import { deliveryProgress, failingSince, loadDelivery, markDelivery, planDeliveries, recordAttempt } from '../db/webhookDeliveries';
import type { Logger } from '../lib/logger';
import { ledgerInvariantViolations, paymentTransitions, projectionFailures, webhookDeliveries, webhookDuration } from '../lib/metrics';
import { signWebhookBody, standardWebhookHeaders } from '../webhooks/signature';
import { type DeliveryRetry, deliveryRetry, webhookTaskQueue } from '../webhooks/retryPolicy';
import { checkResolvedHost, checkWebhookUrl, deliveryAgent } from '../webhooks/urlPolicy';
import { fetch } from 'undici';
import ms from 'ms';

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
}

export function createActivities({ db, config, logger }: ActivityDeps) {
  return {
    /**
     * Project the payment and its history entry into the read model and the ledger, and record the
     * webhook deliveries the entry owes, in one transaction (idempotent, versioned). Data PostgreSQL
     * refuses can never succeed: not retryable.
     */
    async projectTransition(state: PaymentState, entry: HistoryEntry, requestId?: string): Promise<DeliveryPlan> {
      const body = envelope(entry.event, entry.at, paymentView(state), state.version);
      let deliveries: DeliveryTarget[];
      try {
        deliveries = await db.transaction(async (trx) => {
          const planned = await planDeliveries(trx, { accountId: state.accountId, livemode: state.livemode }, body, state.version);
          // The read model and the ledger last: the ledger's balance rows are shared, so they are held until commit only.
          await projectPayment(trx, state, entry);
          return planned;
        });
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
      return {
        deliveryIds: deliveries.map((d) => d.id),
        deliveries,
        retry: deliveryRetry(config),
        taskQueue: webhookTaskQueue(config),
        handoffAfterMs: config.WEBHOOK_HANDOFF_AFTER,
      };
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
     * returns without sending when the configuration was deleted meanwhile.
     */
    async deliverWebhook(deliveryId: string, timeoutMs: number, maximumAttempts: number, attemptBase = 0): Promise<DeliveryOutcome> {
      // A resend numbers its series after the attempts already logged; the retry policy counts its own.
      const seriesAttempt = Context.current().info.attempt;
      const attempt = attemptBase + seriesAttempt;
      const found = await loadDelivery(db, deliveryId, webhookSecretKey(config));
      if (!found) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} not found`, 'DeliveryNotFound');
      const { delivery, webhook } = found;
      const log = logger.child({ delivery_id: deliveryId, webhook_id: webhook.id, event: delivery.event, attempt });
      // A retry of a delivery that a resend or recover delivered meanwhile: nothing left to send.
      if (seriesAttempt > 1 && delivery.status === 'succeeded') {
        log.info('delivered meanwhile by a resend or recover; this series stops');
        return 'succeeded';
      }
      if (!webhook.active || webhook.deleted_at) {
        await markDelivery(db, deliveryId, 'skipped');
        webhookDeliveries.inc({ outcome: 'skipped' });
        log.info('webhook configuration deleted; delivery skipped');
        return 'skipped';
      }
      const started = Date.now();
      const at = new Date(started);
      /** A URL the rules forbid: one recorded attempt, no retries. */
      const refuse = async (reason: string, durationMs: number): Promise<never> => {
        await recordAttempt(db, deliveryId, { attempt, at, statusCode: null, durationMs, error: `refused: ${reason}` }, 'failed');
        webhookDeliveries.inc({ outcome: 'refused' });
        throw ApplicationFailure.nonRetryable(reason, 'WebhookUrlRefused');
      };
      // The URL rules apply again at delivery time, in both modes: DNS may have changed since configuration.
      const rules = { livemode: webhook.livemode, allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK };
      const check = checkWebhookUrl(webhook.url, rules);
      if (!check.ok) return refuse(check.message, 0);
      const resolved = await checkResolvedHost(check.url, rules);
      if (!resolved.ok) return refuse(resolved.message, 0);

      let statusCode: number | null = null;
      let excerpt: string | null = null;
      let error: string | null = null;
      let blockedAtConnect: string | null = null;
      try {
        const response = await fetch(webhook.url, {
          method: 'POST',
          // Connect only to an address that passed the check (no DNS rebinding).
          dispatcher: deliveryAgent(rules),
          body: delivery.body,
          redirect: 'manual', // a redirect is a failed attempt, never followed
          signal: AbortSignal.timeout(timeoutMs),
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'payment-custody-webhooks/1',
            'X-Service-Signature': signWebhookBody(delivery.body, webhook.secret),
            'X-Service-Event': delivery.event,
            'X-Service-Delivery': delivery.id,
            // Standard Webhooks: the id, this attempt's time and the body signed together, so a
            // captured delivery cannot be replayed later; both secrets during a rotation's overlap.
            ...standardWebhookHeaders(
              delivery.id,
              delivery.body,
              webhook.previousSecret ? [webhook.secret, webhook.previousSecret] : [webhook.secret],
              started,
            ),
          },
        });
        statusCode = response.status;
        excerpt = await readExcerpt(response.body);
        error = answerError(statusCode);
      } catch (err) {
        const e = err as Error & { cause?: { code?: string; message?: string } };
        if (e.cause?.code === 'EBLOCKEDADDRESS') blockedAtConnect = e.cause.message ?? 'blocked address';
        error = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      }
      const durationMs = Date.now() - started;
      if (blockedAtConnect) return refuse(blockedAtConnect, durationMs);
      const outcome = error ? 'failed' : 'succeeded';
      webhookDeliveries.inc({ outcome });
      webhookDuration.observe({ outcome }, durationMs / 1000);
      const finalStatus = statusAfterAttempt(Boolean(error), seriesAttempt, maximumAttempts);
      // 410 Gone: the receiver says the endpoint is gone for good. No more attempts, to any delivery.
      if (statusCode === 410) {
        await recordAttempt(db, deliveryId, { attempt, at, statusCode, durationMs, error, excerpt }, 'failed');
        await disableWebhook(db, webhook.id, 'the receiver answered HTTP 410 Gone');
        log.warn({ webhook_id: webhook.id }, 'webhook configuration disabled: the receiver answered 410');
        throw ApplicationFailure.nonRetryable('the receiver answered HTTP 410 Gone; configuration disabled', 'WebhookGone');
      }
      await recordAttempt(db, deliveryId, { attempt, at, statusCode, durationMs, error, excerpt }, finalStatus);
      // Every delivery failing for WEBHOOK_DISABLE_AFTER: the endpoint is off until re-enabled.
      if (error && (await failingSince(db, webhook.id, config.WEBHOOK_DISABLE_AFTER))) {
        await disableWebhook(db, webhook.id, `every delivery failed for ${ms(config.WEBHOOK_DISABLE_AFTER, { long: true })}`);
        log.warn({ webhook_id: webhook.id }, 'webhook configuration disabled: every delivery failed for the whole window');
        throw ApplicationFailure.nonRetryable(error, 'WebhookDisabled');
      }
      if (error) {
        log.warn({ status_code: statusCode, duration_ms: durationMs, error }, 'webhook delivery attempt failed');
        throw ApplicationFailure.retryable(error, 'WebhookDeliveryFailed');
      }
      log.info({ status_code: statusCode, duration_ms: durationMs }, 'webhook delivered');
      return 'succeeded';
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

const EXCERPT_BYTES = 1024;

/** The first 1 KB of a receiver's answer, as text PostgreSQL can store; the rest is not read. */
async function readExcerpt(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } catch {
    // An answer cut short still has the part read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
  return text.replace(/\u0000/g, '').toWellFormed();
}
