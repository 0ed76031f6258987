/**
 * Webhook delivery, workflow side (docs/webhooks.md, "One road"). A payment's publication writes the
 * projection and the deliveries it owes; then each delivery's series runs in the payment's run,
 * its one activity on the webhooks task queue making every attempt under Temporal's retry policy.
 * The run closes once its projections are written and its series have ended.
 */
import {
  type ActivityOptions,
  ActivityFailure,
  ParentClosePolicy,
  condition,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import type { Activities, ChainedDelivery, PublicationInput, SeriesPlan } from '../platform/activities';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import { DELIVERY_ACTIVITY_MARGIN_MS, tenantPriority, seriesStartOptions } from './deliverySeries.rules';
import { PROJECTION_REFUSED } from '../platform/failures.rules';
import { stepSummary } from '../payments/paymentSummary.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { DeliverySeries, type RetryNow } from './deliverySeries.workflow';
import { webhookDeliveryWorkflow } from './deliverySeriesRun.workflow';

/** Retry now for a series running in a payment's run (docs/webhooks.md, "Retry now"). */
export const retryDeliveryUpdate = defineUpdate<{ attempt: number }, [RetryNow & { deliveryId: string }]>('retryDelivery');

// The publication: the projection and the deliveries' rows in one statement, then each delivery's
// series started. An ordinary activity, scheduled by the workflow task that made the transition
// durable, so the read model never runs ahead of the workflow. Outages are retried for hours; data
// PostgreSQL refuses is not.
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

// A rare path: a projection that failed for good (metric and error log).
const { reportProjectionFailure } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });

/** A payment run's publications: its projections, then its deliveries' series. */
export class Publications {
  /** Projections (read model and ledger) still running: a finished run waits for these. */
  private readonly projections: Promise<unknown>[] = [];
  private readonly series = new Map<string, DeliverySeries>();
  private readonly deliveries: Promise<unknown>[] = [];
  private handOverAfterMs = 0;

  constructor(
    paymentId: string,
    private readonly scope: Scope,
  ) {
    setHandler(retryDeliveryUpdate, (req) => this.running(req.deliveryId).retryNow(req), {
      validator: (req) => this.running(req.deliveryId).validateRetryNow(req),
    });
  }

  private running(deliveryId: string): DeliverySeries {
    const series = this.series.get(deliveryId);
    if (!series) throw new Error(`no series of delivery ${deliveryId} runs in this payment's run`);
    return series;
  }

  /**
   * The transition's projection (read model, ledger, trail and its deliveries' rows), settled once
   * committed (or reported failed for good); the deliveries' series go on in the background. The
   * step's handler awaits it before it answers (docs/architecture.md, "One writer per aggregate").
   */
  publish(input: PublicationInput): Promise<void> {
    const projection = this.run(input);
    this.projections.push(projection);
    return projection;
  }

  private async run(input: PublicationInput): Promise<void> {
    const { entry, payment } = input;
    // Named for the Temporal UI: which step, to which status, at which version, moving what money.
    const { publishTransition } = proxyActivities<Activities>({
      ...PUBLICATION_OPTIONS,
      summary: stepSummary('publish', payment, entry),
    });
    let plan: { inRun?: SeriesPlan };
    try {
      plan = await publishTransition({ ...input, inRun: true });
    } catch (err) {
      // Bounded: the payment's timers and later transitions go on; operators are alerted.
      const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      await reportProjectionFailure({ paymentId: input.payment.id, version: input.payment.version, error });
      return;
    }
    const inRun = plan.inRun;
    if (!inRun) return;
    // As long as an attempt may run: a finished payment's last delivery usually ends well within it.
    this.handOverAfterMs = inRun.retry.timeoutMs + DELIVERY_ACTIVITY_MARGIN_MS;
    for (const chain of inRun.chains) this.deliveries.push(this.deliver(chain, inRun));
  }

  /**
   * A configuration's deliveries of one transition, each its own series: the next starts once the
   * one before has made its first attempt, so a receiver gets them in the transition's order.
   */
  private async deliver(chain: ChainedDelivery, plan: SeriesPlan): Promise<void> {
    const runs: Promise<unknown>[] = [];
    let d: ChainedDelivery | undefined = chain;
    while (d) {
      const { deliveryId } = d;
      const label = `deliver ${d.event} → ${d.webhookId}`;
      const series = new DeliverySeries(
        { deliveryId, series: ORIGINAL_SERIES, retry: plan.retry, base: 0 },
        { taskQueue: plan.taskQueue, priority: tenantPriority(this.scope), firstAlone: (d.then?.length ?? 0) > 0, label },
      );
      this.series.set(deliveryId, series);
      runs.push(this.follow(series, plan, label));
      const later: ChainedDelivery[] = d.then ?? [];
      if (later.length > 0) await series.firstAttempt;
      d = later.length === 0 ? undefined : later.length === 1 ? later[0] : { ...later[0], then: later.slice(1) };
    }
    await Promise.all(runs);
  }

  /** A series to its end, or handed over to a workflow of its own when the payment's run finishes first. */
  private async follow(series: DeliverySeries, plan: SeriesPlan, summary: string): Promise<void> {
    let outcome;
    try {
      outcome = await series.run();
    } catch {
      // A series that gave up has said so in the log and the trail; the payment goes on.
      return;
    } finally {
      this.series.delete(series.deliveryId);
    }
    if (outcome !== 'handed-over') return;
    await startChild(webhookDeliveryWorkflow, {
      ...seriesStartOptions(series.deliveryId, this.scope, plan.taskQueue, `${summary} (continued)`, true),
      memo: { series: ORIGINAL_SERIES },
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [{ deliveryId: series.deliveryId, series: ORIGINAL_SERIES, retry: plan.retry, base: 0, resumed: true }],
    });
  }

  /**
   * The payment is finished: its run closes once its read model and ledger are written and its
   * deliveries' series have ended, or, for a series still retrying a failing receiver once its attempt
   * in flight has ended, once that series goes on in a workflow of its own (docs/operations.md).
   */
  async finish(): Promise<void> {
    await Promise.all(this.projections);
    if (this.series.size > 0 && !(await condition(() => this.series.size === 0, this.handOverAfterMs))) {
      for (const series of this.series.values()) series.handOver();
    }
    await Promise.all(this.deliveries);
  }
}
