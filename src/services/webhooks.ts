/**
 * The webhook use cases: configurations, their secrets, the delivery log, and deliveries started
 * outside a payment's run (`payment.test`, resend, recover). The only code besides the payments
 * use cases that starts workflows; routes parse, call one of these and respond.
 */
import {
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowIdConflictPolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { type Config, stackPorts, webhookSecretKey } from '../config';
import { ORIGINAL_SERIES } from '../domain/deliveryAttempt';
import { type DeliveryView, deliveryView } from '../views/deliveryView';
import { PAYMENT_EVENTS } from '../domain/paymentTypes';
import { samplePayment } from '../views/paymentView';
import { seriesStartOptions } from '../domain/deliverySeries';
import { type Scope } from '../domain/tenancy';
import { envelope } from '../views/webhookEnvelope';
import {
  type WebhookConfiguration,
  type WebhookWithSecret,
  countWebhooks,
  createWebhook,
  deleteWebhook,
  findWebhook,
  findWebhookWithDeleted,
  listWebhooks,
  rotateWebhookSecret,
  setWebhookActive,
  countTestSend,
} from '../db/webhookConfigurations';
import {
  type DeliveryFilter,
  type LoggedDelivery,
  type StaleSeries,
  claimSeries,
  createSingleDelivery,
  dropUnattempted,
  failedDeliveriesSince,
  findDelivery,
  getDelivery,
  listDeliveries,
  releaseSeries,
} from '../db/webhookDeliveries';
import { type DeliveryRetry, deliveryRetry, nextAttemptAt, webhookTaskQueue } from '../webhookRules/retryPolicy';
import { checkResolvedHost, checkWebhookUrl } from '../webhookRules/urlPolicy';
import { retryDeliveryUpdate, retryNowUpdate, webhookDeliveryWorkflow } from '../workflows';
import { withAccountLock } from '../db/accounts';
import { TEMPORAL_CALL_TIMEOUT_MS, withinDeadline } from './deadline';
import { DeliveryInProgress, InvalidInput, NotFound, QuotaExceeded, pageOrRefuse } from './errors';

interface WebhooksDeps {
  db: Knex;
  temporal: Client;
  config: Config;
}

export type { WebhookConfiguration, WebhookWithSecret };

/** A logged delivery as the API shows it, its next attempt by the retry policy. */
const viewOf = (retry: DeliveryRetry, { delivery, attempts }: LoggedDelivery): DeliveryView =>
  deliveryView(delivery, attempts, nextAttemptAt(retry, delivery.status, attempts.at(-1)));

const badUrl = (message: string) => new InvalidInput([{ field: 'url', message }]);

/**
 * A resend's claim with no workflow behind it is taken over once older than this: its claimant's
 * start has ended by then (it runs under TEMPORAL_CALL_TIMEOUT_MS), so no start is still under way.
 * Twice that, for replicas whose clocks differ.
 */
const ORPHANED_CLAIM_MS = 2 * TEMPORAL_CALL_TIMEOUT_MS;

/** A resend's series is named for the log; its workflow id is the delivery's, as every series'. */
const RESEND_PREFIX = 'resend_';

/** How many of a recover's series start at once. */
const RECOVER_START_CONCURRENCY = 16;

/** A pending activity not running; with a next attempt time, in the retry policy's backoff. */
const PENDING_ACTIVITY_SCHEDULED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;

/** A resend's outcome: a new series whose first attempt has this number, or the series already running. */
type Resent = { attempt: number } | { running: string; run?: SeriesRun };

/** The run a delivery's series is part of, as Temporal described it (`seriesRun`). */
type SeriesRun = { own: boolean; handle: WorkflowHandle; described: WorkflowExecutionDescription } | null;

export function webhooksService({ db, temporal, config }: WebhooksDeps) {
  const secretKey = () => webhookSecretKey(config);

  async function load(scope: Scope, id: string): Promise<WebhookConfiguration> {
    const row = await findWebhook(db, scope, id);
    if (!row) throw new NotFound('webhook');
    return row;
  }

  async function loadWithDeleted(scope: Scope, id: string): Promise<WebhookConfiguration> {
    const row = await findWebhookWithDeleted(db, scope, id);
    if (!row) throw new NotFound('webhook');
    return row;
  }

  /**
   * A delivery's series (docs/webhooks.md, "One road"): its workflow, named by the delivery's id, on
   * the webhooks task queue. `first` for a test's; else a series claimed in the log after the last
   * ended, numbered after the `base` attempts the log holds: a run still closing is the last one's.
   */
  async function startSeries(scope: Scope, deliveryId: string, series: string, summary: string, first: boolean, base = 0): Promise<void> {
    const options = seriesStartOptions(deliveryId, scope, webhookTaskQueue(config), summary, first);
    await withinDeadline(temporal, () =>
      temporal.workflow.start(webhookDeliveryWorkflow, {
        ...options,
        ...(first ? {} : { workflowIdConflictPolicy: WorkflowIdConflictPolicy.TERMINATE_EXISTING }),
        // Which series a run is, for a later resend to tell its own run from an earlier one.
        memo: { series },
        args: [{ deliveryId, series, retry: deliveryRetry(config), base }],
      }),
    );
  }

  /**
   * The run a delivery's series is part of: the workflow named by the delivery (a resend's, a test's,
   * or a first series started before the series moved into the payment's run), else the payment's
   * run, which runs its deliveries' first series itself (docs/webhooks.md, "One road").
   */
  async function seriesRun(deliveryId: string, running: string) {
    const own = temporal.workflow.getHandle(deliveryId);
    try {
      const described = await withinDeadline(temporal, () => own.describe());
      return { own: true, handle: own, described };
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    if (running !== ORIGINAL_SERIES) return null;
    const row = await db('webhook_deliveries').where({ id: deliveryId }).first<{ payment_id: string | null } | undefined>('payment_id');
    if (!row?.payment_id) return null;
    const payment = temporal.workflow.getHandle(row.payment_id);
    try {
      const described = await withinDeadline(temporal, () => payment.describe());
      return { own: false, handle: payment, described };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /**
   * Whether a claimed series may be replaced: no run holds it, and it is not a resend claimed so
   * recently that its start may still be under way. Null while it may still run.
   */
  function staleSeries(run: SeriesRun, running: string, claimedAt: Date): StaleSeries | null {
    if (run) {
      if (run.described.status.name === 'RUNNING') return null;
      // This series' own run has ended.
      if (!run.own || run.described.memo?.series === running) return { series: running };
    }
    if (!running.startsWith(RESEND_PREFIX)) return { series: running };
    const claimedBefore = new Date(Date.now() - ORPHANED_CLAIM_MS);
    return claimedAt < claimedBefore ? { series: running, claimedBefore } : null;
  }

  /**
   * A new series of attempts for a logged delivery (same webhook-id): claimed in the log first, so
   * that at most one series runs per delivery, and given back if its workflow does not start.
   * Answers the running series' name instead when there is one.
   */
  async function resend(scope: Scope, webhook: WebhookConfiguration, deliveryId: string, base: number): Promise<Resent> {
    const series = `${RESEND_PREFIX}${deliveryId}_${ulid()}`;
    let claim = await claimSeries(db, deliveryId, series);
    if ('running' in claim) {
      // Described once: a retry-now of the running series reads the same description.
      const run = await seriesRun(deliveryId, claim.running);
      const stale = staleSeries(run, claim.running, claim.claimedAt);
      if (!stale) return { running: claim.running, run };
      claim = await claimSeries(db, deliveryId, series, stale);
      if ('running' in claim) return { running: claim.running };
    }
    try {
      await startSeries(scope, deliveryId, series, `resend of ${deliveryId} to ${webhook.id}`, false, base);
    } catch (err) {
      // Should the workflow have started after all, its attempts find the delivery no longer its series and send nothing.
      await releaseSeries(db, deliveryId, series, claim.previous);
      throw err;
    }
    return { attempt: base + 1 };
  }

  /**
   * Retry now (docs/webhooks.md, "Retry now"): a running series waiting between attempts (its
   * activity in the retry policy's backoff, or waiting for a turn at a full endpoint) runs its next
   * attempt at once, numbered after the `logged` ones. Null while an attempt is in flight or about
   * to be, or for a run that cannot be woken (series started before retry-now existed answer the
   * update as unknown).
   */
  async function retryNow(deliveryId: string, running: string, logged: number, described?: SeriesRun): Promise<number | null> {
    try {
      const run = described === undefined ? await seriesRun(deliveryId, running) : described;
      if (!run || run.described.status.name !== 'RUNNING') return null;
      if (run.own && (run.described.memo?.series ?? ORIGINAL_SERIES) !== running) return null;
      // In a payment's run, the series' activities are named by the delivery (src/workflows/deliverySeries.ts).
      const attempt = run.described.raw.pendingActivities?.find((a) =>
        run.own ? a.activityType?.name === 'deliverWebhook' : a.activityId === deliveryId || a.activityId?.startsWith(`${deliveryId}.`),
      );
      const backoff = attempt !== undefined && attempt.state === PENDING_ACTIVITY_SCHEDULED && !!attempt.nextAttemptScheduleTime;
      // An attempt running or queued to run is in flight; with none, the series may wait on a timer (it judges).
      if (attempt && !backoff) return null;
      const woken = await withinDeadline(temporal, () =>
        run.own
          ? run.handle.executeUpdate(retryNowUpdate, { args: [{ logged, backoff }] })
          : run.handle.executeUpdate(retryDeliveryUpdate, { args: [{ deliveryId, logged, backoff }] }),
      );
      return woken.attempt;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return null;
      throw err;
    }
  }

  return {
    /** The URL is checked against the mode's rules, by name and by what it resolves to. */
    async configure(scope: Scope, input: { url: string; events?: string[] }): Promise<WebhookWithSecret> {
      const rules = { livemode: scope.livemode, allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, stackPorts: stackPorts(config) };
      const check = checkWebhookUrl(input.url, rules);
      if (!check.ok) throw badUrl(check.message);
      const resolved = await checkResolvedHost(check.url, rules);
      if (!resolved.ok) throw badUrl(resolved.message);
      const max = config.MAX_WEBHOOKS_PER_ACCOUNT;
      // Counted and added under the account's lock: concurrent requests cannot pass the quota together.
      return withAccountLock(db, scope.accountId, async (trx) => {
        if ((await countWebhooks(trx, scope)) >= max) {
          const mode = scope.livemode ? 'live' : 'test';
          const message = `this account has ${max} ${mode} webhook configurations, the most it may have; delete one first`;
          throw new QuotaExceeded('webhooks', max, 'MAX_WEBHOOKS_PER_ACCOUNT', message);
        }
        return createWebhook(trx, secretKey(), scope, check.url.toString(), input.events ?? [...PAYMENT_EVENTS]);
      });
    },

    list: (scope: Scope) => listWebhooks(db, scope),

    get: (scope: Scope, id: string) => load(scope, id),

    async remove(scope: Scope, id: string): Promise<void> {
      if (!(await deleteWebhook(db, scope, id))) throw new NotFound('webhook');
    },

    async rotateSecret(scope: Scope, id: string, expirePreviousInSeconds: number): Promise<WebhookWithSecret> {
      const row = await rotateWebhookSecret(db, secretKey(), scope, id, expirePreviousInSeconds);
      if (!row) throw new NotFound('webhook');
      return row;
    },

    /** Sends `payment.test` with the sample payment, whose status is "test" so that no receiver mistakes it for a real one. */
    async sendTest(scope: Scope, id: string): Promise<string> {
      const row = await load(scope, id);
      const limit = config.MAX_TEST_SENDS_PER_WEBHOOK_HOUR;
      if (!(await countTestSend(db, row.id, limit))) {
        const message = `webhook ${row.id} was sent ${limit} test events this hour, the most it may be (MAX_TEST_SENDS_PER_WEBHOOK_HOUR); send again next hour`;
        throw new QuotaExceeded('test_sends', limit, 'MAX_TEST_SENDS_PER_WEBHOOK_HOUR', message);
      }
      const now = new Date().toISOString();
      const deliveryId = await createSingleDelivery(db, row.id, envelope('payment.test', now, samplePayment(scope.livemode, now), 0));
      try {
        await startSeries(scope, deliveryId, ORIGINAL_SERIES, `payment.test to ${row.id}`, true);
      } catch (err) {
        // Left in the log, it would be pending for good, refusing every resend; the client, answered an error, never saw its id.
        await dropUnattempted(db, deliveryId);
        throw err;
      }
      return deliveryId;
    },

    /** A new series, or the running one's next attempt now; the number of the attempt that runs. */
    async resend(scope: Scope, id: string, deliveryId: string): Promise<number> {
      const row = await load(scope, id);
      const delivery = await findDelivery(db, row.id, deliveryId);
      if (!delivery) throw new NotFound('delivery');
      const resent = await resend(scope, row, deliveryId, delivery.attempts);
      if ('attempt' in resent) return resent.attempt;
      const woken = await retryNow(deliveryId, resent.running, delivery.attempts, resent.run);
      if (woken === null) throw new DeliveryInProgress(deliveryId, resent.running);
      return woken;
    },

    /**
     * Svix's recover: every delivery since a time that failed (and has no series running) gets a
     * new series of attempts now, at most RECOVER_MAX_DELIVERIES per call. A delivery still being
     * retried is left to its running series.
     */
    async recover(scope: Scope, id: string, since: Date): Promise<{ ids: string[]; hasMore: boolean }> {
      const row = await load(scope, id);
      const max = config.RECOVER_MAX_DELIVERIES;
      const found = await failedDeliveriesSince(db, row.id, since, max + 1);
      const ids: string[] = [];
      // Started RECOVER_START_CONCURRENCY at a time: a thousand starts one after another would take the request's time.
      const batch = found.slice(0, max);
      for (let i = 0; i < batch.length; i += RECOVER_START_CONCURRENCY) {
        const part = batch.slice(i, i + RECOVER_START_CONCURRENCY);
        const resent = await Promise.all(part.map((d) => resend(scope, row, d.id, d.attempts)));
        part.forEach((d, j) => 'attempt' in resent[j] && ids.push(d.id));
      }
      return { ids, hasMore: found.length > max };
    },

    /** The delivery log, readable after the configuration's deletion too. */
    async deliveries(scope: Scope, id: string, filter: DeliveryFilter) {
      const row = await loadWithDeleted(scope, id);
      const page = pageOrRefuse(await listDeliveries(db, row.id, filter), 'not a delivery of this configuration');
      const retry = deliveryRetry(config);
      return { data: page.data.map((d) => viewOf(retry, d)), hasMore: page.hasMore };
    },

    async delivery(scope: Scope, id: string, deliveryId: string) {
      const row = await loadWithDeleted(scope, id);
      const found = await getDelivery(db, row.id, deliveryId);
      if (!found) throw new NotFound('delivery');
      return viewOf(deliveryRetry(config), found);
    },

    /** On again (after a 410 or the failure window disabled it) or off; deliveries resume for new events. */
    async setActive(scope: Scope, id: string, active: boolean): Promise<WebhookConfiguration> {
      const row = await setWebhookActive(db, scope, id, active);
      if (!row) throw new NotFound('webhook');
      return row;
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
