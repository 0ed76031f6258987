/**
 * Deliveries of payment runs recorded before the one road (patch `one-road`, see
 * ./webhookDelivery.ts): such a run made each delivery's first attempt inside its publication,
 * continued a failed one's series in its own history and handed the series still running over to
 * `continuedDeliveryWorkflow` when it finished. Kept only so those runs replay and finish; deleted
 * with the patch's deprecation (docs/architecture.md, "Shipping a workflow change safely").
 */
import {
  ActivityCancellationType,
  CancellationScope,
  ParentClosePolicy,
  condition,
  isCancellation,
  proxyActivities,
  sleep,
  startChild,
} from '@temporalio/workflow';
import type { Activities, DeliveryOutcome, DeliveryRetry } from '../platform/activities';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import { continuedRetry } from './retrySchedule';
import { deliveryActivityOptions, gaveUp } from './deliverySeries.workflow';
import { webhookDeliveryWorkflow } from './deliverySeriesRun.workflow';

/** A publication's answer as such a run recorded it; today's publication answers `deliveries` alone. */
export interface LegacyPlan {
  deliveries: { id: string; webhookId: string; series?: string; firstAttempt?: 'done' | 'retry' | 'deliver' }[];
  retry?: DeliveryRetry;
  taskQueue?: string;
  handoffAfterMs?: number;
}

const DEFAULT_HANDOFF_AFTER_MS = 30_000;

/** The series a pre-patch run keeps in its own history, and their hand-over. */
export class LegacySeries {
  private readonly running = new Map<string, CancellationScope>();
  private readonly handedOver: { id: string; retry: DeliveryRetry }[] = [];
  private handoffAfterMs = DEFAULT_HANDOFF_AFTER_MS;
  private handingOver = false;

  constructor(private readonly paymentId: string) {}

  /** The rest of each delivery's series whose inline first attempt did not end it. */
  continue(plan: LegacyPlan, event: string): void {
    const { retry, taskQueue } = plan;
    // A publication made after the deploy started the series itself.
    if (!retry || !taskQueue) return;
    this.handoffAfterMs = plan.handoffAfterMs ?? DEFAULT_HANDOFF_AFTER_MS;
    for (const target of plan.deliveries) {
      if (target.firstAttempt !== 'done') void this.retry(target, retry, taskQueue, event);
    }
  }

  private async retry(target: LegacyPlan['deliveries'][number], retry: DeliveryRetry, taskQueue: string, event: string): Promise<void> {
    const rest = target.firstAttempt === 'retry' ? continuedRetry(retry, 1) : { waitMs: 0, retry };
    if (!rest) return;
    const series = target.series ?? ORIGINAL_SERIES;
    const { deliverWebhook } = proxyActivities<Activities>({
      ...deliveryActivityOptions(rest.retry),
      taskQueue,
      activityId: target.id,
      summary: `deliver ${event} → ${target.webhookId}`,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
    const scope = new CancellationScope();
    this.running.set(target.id, scope);
    try {
      await scope.run(async () => {
        if (rest.waitMs > 0) await sleep(rest.waitMs);
        return deliverWebhook({ deliveryId: target.id, series, retry: rest.retry });
      });
    } catch (err) {
      if (isCancellation(err) || this.handingOver) this.handedOver.push({ id: target.id, retry });
      else await gaveUp(target.id, series, err);
    } finally {
      this.running.delete(target.id);
    }
  }

  /** The series still running a while after the payment finished continue in workflows of their own. */
  async finish(): Promise<void> {
    if (this.running.size === 0) return;
    if (await condition(() => this.running.size === 0, this.handoffAfterMs)) return;
    this.handingOver = true;
    for (const scope of this.running.values()) scope.cancel();
    await condition(() => this.running.size === 0);
    for (const { id, retry } of this.handedOver) {
      await startChild(continuedDeliveryWorkflow, {
        workflowId: `${id}-continued`,
        args: [{ deliveryId: id, retry }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `continue ${id} for ${this.paymentId}`,
      });
    }
  }
}

/**
 * The rest of a handed-over delivery's original series, at the intervals and attempts it had left:
 * a resumed series (./deliverySeries.ts), numbered after the attempts the log holds.
 */
export async function continuedDeliveryWorkflow({
  deliveryId,
  retry,
}: {
  deliveryId: string;
  retry: DeliveryRetry;
}): Promise<DeliveryOutcome> {
  return webhookDeliveryWorkflow({ deliveryId, series: ORIGINAL_SERIES, retry, resumed: true });
}
