/**
 * A delivery's series started from the webhook use cases (docs/webhooks.md, "One road"): a test's
 * first, a resend's (claimed in the log so that at most one runs per delivery), and retry-now of
 * the series running. The series itself is src/webhooks/deliverySeries.workflow.ts.
 */
import {
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowIdConflictPolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { Config } from '../platform/config';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import { seriesStartOptions } from './deliverySeries.rules';
import type { Scope } from '../tenants/tenancy.rules';
import type { WebhookConfiguration } from './webhookConfigurations.repository';
import { type StaleSeries, claimSeries, releaseSeries } from './webhookDeliveries.repository';
import { deliveryRetry, webhookTaskQueue } from './retrySchedule';
import { retryDeliveryUpdate, retryNowUpdate, webhookDeliveryWorkflow } from '../platform/workflows.workflow';
import { TEMPORAL_CALL_TIMEOUT_MS, withinDeadline } from '../platform/lib/temporalDeadline';

/**
 * A resend's claim with no workflow behind it is taken over once older than this: its claimant's
 * start has ended by then (it runs under TEMPORAL_CALL_TIMEOUT_MS), so no start is still under way.
 * Twice that, for replicas whose clocks differ.
 */
const ORPHANED_CLAIM_MS = 2 * TEMPORAL_CALL_TIMEOUT_MS;

/** A resend's series is named for the log; its workflow id is the delivery's, as every series'. */
const RESEND_PREFIX = 'resend_';

/** A pending activity not running; with a next attempt time, in the retry policy's backoff. */
const PENDING_ACTIVITY_SCHEDULED = proto.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;

/** A resend's outcome: a new series whose first attempt has this number, or the series already running. */
type Resent = { attempt: number } | { running: string; run?: SeriesRun };

/** The run a delivery's series is part of, as Temporal described it (`seriesRun`). */
type SeriesRun = { own: boolean; handle: WorkflowHandle; described: WorkflowExecutionDescription } | null;

export function deliverySeries({ db, temporal, config }: { db: Knex; temporal: Client; config: Config }) {
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
      // In a payment's run, the series' activities are named by the delivery (src/webhooks/deliverySeries.workflow.ts).
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

  return { startSeries, resend, retryNow };
}
