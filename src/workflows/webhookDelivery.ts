/**
 * Webhook delivery, workflow side: one module owns "deliver, retry, hand over" (docs/webhooks.md).
 * A payment's publications make each delivery's first attempt inline; `Publications` runs the rest
 * of a series whose first attempt failed and, once the payment is finished, hands the series still
 * running to `continuedDeliveryWorkflow`. Series outside a payment's run (`payment.test`, a resend)
 * are `webhookDeliveryWorkflow`.
 */
import {
  type ActivityOptions,
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  condition,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  startChild,
} from '@temporalio/workflow';
import type {
  Activities,
  DeliveryOutcome,
  DeliveryPlan,
  DeliveryRetry,
  DeliveryTarget,
  PublicationInput,
  SeriesInput,
} from '../activities';
import { ORIGINAL_SERIES } from '../domain/deliveryAttempt';
import { FINAL_DELIVERY_FAILURES, PROJECTION_REFUSED, WEBHOOK_DELIVERY_EXHAUSTED } from '../domain/failures';
import { stepSummary } from '../domain/paymentSummary';
import { continuedRetry } from '../webhookRules/retryPolicy';

/** How long a finished payment waits for its last deliveries before handing them over, until a plan says. */
const DEFAULT_HANDOFF_AFTER_MS = 30_000;

// The publication: the projection, then each delivery's first attempt inline, whose HTTP time-out is
// WEBHOOK_TIMEOUT up to INLINE_ATTEMPT_MAX_TIMEOUT_MS (30 s); the rest is margin. An ordinary
// activity, scheduled by the workflow task that made the transition durable, so the read model
// never runs ahead of the workflow. Outages are retried for hours; data PostgreSQL refuses is not.
const PUBLICATION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '45 seconds',
  retry: {
    initialInterval: '200 ms',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 500,
    nonRetryableErrorTypes: [PROJECTION_REFUSED],
  },
};

// Rare paths: a projection that failed for good (metric and error log); a series that gave up.
const { reportProjectionFailure } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });
const { deliveryProgress, endSeries } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/** How a delivery activity runs: the HTTP time-out plus a margin, under the WEBHOOK_* retry policy. */
function deliveryActivityOptions(retry: DeliveryRetry): ActivityOptions {
  return {
    // The HTTP call aborts at timeoutMs; the margin covers the database writes around it.
    startToCloseTimeout: retry.timeoutMs + 10_000,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: FINAL_DELIVERY_FAILURES,
    },
  };
}

/** A payment run's publications and the delivery series they leave running. */
export class Publications {
  /** Projections (read model and ledger) still running: a finished run waits for these. */
  private readonly projections: Promise<unknown>[] = [];
  /** Series running in this run, by delivery id, each in a scope the hand-over can cancel. */
  private readonly running = new Map<string, { scope: CancellationScope; retry: DeliveryRetry }>();
  /** Series cut short by the hand-over, to continue in workflows of their own. */
  private readonly handedOver: { id: string; retry: DeliveryRetry }[] = [];
  private handoffAfterMs = DEFAULT_HANDOFF_AFTER_MS;
  private handingOver = false;

  constructor(private readonly paymentId: string) {}

  /** Read model and webhooks in the background: a slow receiver never delays a transition. */
  publish(input: PublicationInput): void {
    let projected!: () => void;
    this.projections.push(new Promise<void>((resolve) => (projected = resolve)));
    void this.run(input, projected).finally(projected);
  }

  /** `projected` is called once the read model and ledger are written (or failed for good), before the retries. */
  private async run(input: PublicationInput, projected: () => void): Promise<void> {
    const { entry, payment } = input;
    // Named for the Temporal UI: which step, to which status, at which version, moving what money.
    const { publishTransition } = proxyActivities<Activities>({
      ...PUBLICATION_OPTIONS,
      summary: stepSummary('publish', payment, entry),
    });
    let plan: DeliveryPlan;
    try {
      plan = await publishTransition(input);
    } catch (err) {
      // Bounded: the payment's timers and later transitions go on; operators are alerted.
      const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      await reportProjectionFailure({ paymentId: input.payment.id, version: input.payment.version, error });
      return;
    }
    projected();
    this.handoffAfterMs = plan.handoffAfterMs;
    // A delivery whose inline first attempt ended needs nothing more.
    const open = plan.deliveries.filter((target) => target.firstAttempt !== 'done');
    await Promise.all(open.map((target) => this.retry(target, plan, entry.event)));
  }

  /**
   * The rest of a delivery's series on the webhook task queue, under Temporal's retry policy: after
   * an inline first attempt that failed, its next interval and its attempts left.
   */
  private async retry(target: DeliveryTarget, plan: DeliveryPlan, event: string): Promise<void> {
    const rest = target.firstAttempt === 'retry' ? continuedRetry(plan.retry, 1) : { waitMs: 0, retry: plan.retry };
    if (!rest) return;
    const { deliverWebhook } = proxyActivities<Activities>({
      ...deliveryActivityOptions(rest.retry),
      taskQueue: plan.taskQueue,
      activityId: target.id,
      // The configuration's id, never its URL (which may carry a token).
      summary: `deliver ${event} → ${target.webhookId}`,
      // A hand-over waits until no attempt is in flight, so the continuation never overlaps it.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
    const scope = new CancellationScope();
    this.running.set(target.id, { scope, retry: plan.retry });
    try {
      await scope.run(async () => {
        if (rest.waitMs > 0) await sleep(rest.waitMs);
        return deliverWebhook({ deliveryId: target.id, series: target.series, retry: rest.retry });
      });
    } catch (err) {
      // Cut short by the hand-over: continued elsewhere, whatever the last attempt reported (a
      // failure that raced the cancellation too; the continuation skips a delivery already ended).
      if (isCancellation(err) || this.handingOver) this.handedOver.push({ id: target.id, retry: plan.retry });
      else await gaveUp(target.id, target.series, err);
    } finally {
      this.running.delete(target.id);
    }
  }

  /**
   * The payment is finished: once its read model and ledger are written the run may close. Its
   * series get a short while to end; those still running then continue in workflows of their own,
   * same delivery id, their attempt count carried over.
   */
  async finish(): Promise<void> {
    await Promise.all(this.projections);
    if (this.running.size === 0) return;
    if (await condition(() => this.running.size === 0, this.handoffAfterMs)) return;
    this.handingOver = true;
    for (const r of this.running.values()) r.scope.cancel();
    await condition(() => this.running.size === 0);
    for (const { id, retry } of this.handedOver) {
      await startChild(continuedDeliveryWorkflow, {
        // On this payment's task queue, as resends run: the webhook queue's workers run activities only.
        workflowId: `${id}-continued`,
        args: [{ deliveryId: id, retry }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `continue ${id} for ${this.paymentId}`,
      });
    }
  }
}

/** A series that ended without a success: the delivery log holds every attempt; the delivery is free for a resend. */
async function gaveUp(deliveryId: string, series: string, err: unknown): Promise<void> {
  log.warn('webhook delivery series ended without a success', { deliveryId, series, error: String(err) });
  await endSeries({ deliveryId, series });
}

/**
 * A series outside a payment's run: `payment.test`, a resend. A single activity under Temporal's
 * retry policy (docs/webhooks.md, "Retries": initial 1 min, coefficient 5, max interval 2 h, 5 attempts).
 */
export async function webhookDeliveryWorkflow(input: SeriesInput): Promise<DeliveryOutcome> {
  const { deliverWebhook } = proxyActivities<Activities>(deliveryActivityOptions(input.retry));
  try {
    return await deliverWebhook(input);
  } catch (err) {
    await gaveUp(input.deliveryId, input.series, err);
    throw ApplicationFailure.nonRetryable(`delivery ${input.deliveryId} failed after its retries`, WEBHOOK_DELIVERY_EXHAUSTED, String(err));
  }
}

/**
 * The rest of a delivery's original series after a finished payment handed it over (or `npm run
 * repair` found its run stopped): nothing if it ended meanwhile, else the attempts it had left, at
 * the intervals it had left.
 */
export async function continuedDeliveryWorkflow({
  deliveryId,
  retry,
}: {
  deliveryId: string;
  retry: DeliveryRetry;
}): Promise<DeliveryOutcome> {
  const progress = await deliveryProgress(deliveryId);
  if (!progress || progress.status !== 'pending' || progress.series !== ORIGINAL_SERIES) return 'skipped';
  const rest = continuedRetry(retry, progress.attempts);
  if (!rest) {
    await endSeries({ deliveryId, series: ORIGINAL_SERIES });
    return 'skipped';
  }
  const sinceLast = progress.lastAttemptAt === null ? 0 : Date.now() - progress.lastAttemptAt;
  if (rest.waitMs > sinceLast) await sleep(rest.waitMs - sinceLast);
  return webhookDeliveryWorkflow({ deliveryId, series: ORIGINAL_SERIES, retry: rest.retry });
}
