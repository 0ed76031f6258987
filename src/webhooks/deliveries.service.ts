/**
 * A delivery's workflow reached from the webhook use cases (docs/webhooks.md, "One road"): a test's
 * first series, a resend's (claimed in the log so that at most one series runs per delivery), and
 * retry-now of the series running — each one update-with-start of the workflow named by the
 * delivery's id (src/webhooks/deliveryRoad.ts). The workflow is src/webhooks/webhookDelivery.workflow.ts.
 */
import { type Client, type WorkflowExecutionDescription, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { Config } from '../platform/config';
import { firstSeriesStart, seriesStartOptions } from './deliverySeries.rules';
import type { Scope } from '../tenants/tenancy.rules';
import type { WebhookConfiguration } from './webhookConfigurations.repository';
import { type StaleSeries, claimSeries, releaseSeries } from './webhookDeliveries.repository';
import { deliveryRetry, webhookTaskQueue } from './retrySchedule';
import type { DeliverRequest, SeriesInput } from '../platform/workflows.workflow';
import { deliverThrough, startFirstSeries } from './deliveryRoad';
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
type Resent = { attempt: number } | { running: string; run?: WorkflowExecutionDescription | null };

/** How a delivery's workflow starts when a request finds none open. */
export interface DeliveryStart {
  scope: Scope;
  input: SeriesInput;
  summary: string;
  /** A first series (a test's): never again once a run of it has closed. */
  once: boolean;
}

export function deliveries({ db, temporal, config }: { db: Knex; temporal: Client; config: Config }) {
  /** The one way in, with this service's queue: the attempt that runs next, null when a `once` series already ran. */
  function deliver(start: DeliveryStart, request: DeliverRequest): Promise<number | null> {
    const { scope, input, summary, once } = start;
    const options = seriesStartOptions(input.deliveryId, scope, webhookTaskQueue(config), summary, once);
    return deliverThrough(temporal, { ...options, args: [{ ...input, label: summary }] }, request);
  }

  /** A delivery's first series, started now (a test's): it has not run before. */
  async function startFirst(scope: Scope, deliveryId: string, series: string, summary: string): Promise<void> {
    const input = { deliveryId, series, retry: deliveryRetry(config), base: 0 };
    await deliver({ scope, input, summary, once: true }, { series, logged: 0 });
  }

  /**
   * The deliveries an event recorded with its object's step and not attempted yet (a bank credit's:
   * src/payouts/bankCreditEvents.repository.ts), each its first series; one whose workflow ran is left as it is.
   */
  async function startRecorded(scope: Scope, recorded: { id: string; webhook_id: string; event: string }[]): Promise<void> {
    for (const d of recorded) {
      const head = { deliveryId: d.id, webhookId: d.webhook_id, event: d.event };
      await startFirstSeries(temporal, firstSeriesStart(head, scope, webhookTaskQueue(config), deliveryRetry(config)));
    }
  }

  /** The delivery's workflow as Temporal describes its latest run; null when none ever ran. */
  async function seriesRun(deliveryId: string): Promise<WorkflowExecutionDescription | null> {
    try {
      return await withinDeadline(temporal, () => temporal.workflow.getHandle(deliveryId).describe());
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /**
   * Whether a claimed series may be replaced: no run of the delivery's workflow is open, and it is
   * not a resend claimed so recently that its start may still be under way. Null while it may still run.
   */
  function staleSeries(run: WorkflowExecutionDescription | null, running: string, claimedAt: Date): StaleSeries | null {
    if (run?.status.name === 'RUNNING') return null;
    // A first series whose run closed (or never started) without ending it in the log.
    if (!running.startsWith(RESEND_PREFIX)) return { series: running };
    // A resend's claim whose own run has closed without ending it in the log (a resend that ends
    // clears its claim): that run started after the claim.
    if (run && run.startTime > claimedAt) return { series: running };
    // Else no run yet, or only one from before the claim: the claim's start may still be under way.
    const claimedBefore = new Date(Date.now() - ORPHANED_CLAIM_MS);
    return claimedAt < claimedBefore ? { series: running, claimedBefore } : null;
  }

  /**
   * A new series of attempts for a logged delivery (same webhook-id): claimed in the log first, so
   * that at most one series runs per delivery, and given back if its workflow does not take it.
   * Answers the running series' name instead when there is one.
   */
  async function resend(scope: Scope, webhook: WebhookConfiguration, deliveryId: string, base: number): Promise<Resent> {
    const series = `${RESEND_PREFIX}${deliveryId}_${ulid()}`;
    let claim = await claimSeries(db, deliveryId, series);
    if ('running' in claim) {
      // Described once: a retry-now of the running series reads the same description.
      const run = await seriesRun(deliveryId);
      const stale = staleSeries(run, claim.running, claim.claimedAt);
      if (!stale) return { running: claim.running, run };
      claim = await claimSeries(db, deliveryId, series, stale);
      if ('running' in claim) return { running: claim.running };
    }
    const retry = deliveryRetry(config);
    let attempt;
    try {
      const start = { scope, input: { deliveryId, series, retry, base }, summary: `resend of ${deliveryId} to ${webhook.id}`, once: false };
      attempt = await deliver(start, { series, logged: base, retry });
    } catch (err) {
      // Should the workflow have taken it after all, its attempts find the delivery no longer its series and send nothing.
      await releaseSeries(db, deliveryId, series, claim.previous);
      throw err;
    }
    return { attempt: attempt ?? base + 1 };
  }

  /**
   * Retry now (docs/webhooks.md, "Retry now"): a running series waiting between attempts (its
   * activity in the retry policy's backoff, or waiting for a turn at a full endpoint) runs its next
   * attempt at once, numbered after the `logged` ones. Null while an attempt is in flight or about
   * to be, or when the series is not the one the workflow runs.
   */
  async function retryNow(
    scope: Scope,
    deliveryId: string,
    running: string,
    logged: number,
    described?: WorkflowExecutionDescription | null,
  ): Promise<number | null> {
    try {
      const run = described === undefined ? await seriesRun(deliveryId) : described;
      if (run?.status.name !== 'RUNNING') return null;
      const attempt = run.raw.pendingActivities?.find((a) => a.activityType?.name === 'deliverWebhook');
      const backoff = attempt !== undefined && attempt.state === PENDING_ACTIVITY_SCHEDULED && !!attempt.nextAttemptScheduleTime;
      // An attempt running or queued to run is in flight; with none, the series may wait on a timer (it judges).
      if (attempt && !backoff) return null;
      // Should the run close meanwhile, the run this starts refuses the wake (409) and carries the series on from the log's count.
      const input = { deliveryId, series: running, retry: deliveryRetry(config), base: logged };
      return await deliver(
        { scope, input, summary: `retry now of ${deliveryId}`, once: false },
        { series: running, logged, wake: { backoff } },
      );
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return null;
      throw err;
    }
  }

  return { deliver, startFirst, startRecorded, resend, retryNow };
}
