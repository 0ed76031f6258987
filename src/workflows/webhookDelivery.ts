/**
 * Webhook delivery, workflow side (docs/webhooks.md, "One road"). A payment's publication writes the
 * projection and the deliveries it owes, and starts each delivery's series: a
 * `webhookDeliveryWorkflow` of its own on the webhooks task queue, whose one activity makes every
 * attempt under Temporal's retry policy. The payment's run waits for its projections only.
 */
import { type ActivityOptions, ActivityFailure, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities, PublicationInput } from '../activities';
import { PROJECTION_REFUSED } from '../domain/failures';
import { stepSummary } from '../domain/paymentSummary';
import { LegacySeries, type LegacyPlan } from './legacyDelivery';

/** The patch that took delivery off the payment's run (docs/architecture.md, "Shipping a workflow change safely"). */
export const ONE_ROAD_PATCH = 'one-road';

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

/** A payment run's publications: the run closes once their projections are written. */
export class Publications {
  /** Projections (read model and ledger) still running: a finished run waits for these. */
  private readonly projections: Promise<unknown>[] = [];
  /** Runs recorded before the one road continue their deliveries as they began them. */
  private readonly legacy: LegacySeries | undefined;

  constructor(paymentId: string) {
    this.legacy = patched(ONE_ROAD_PATCH) ? undefined : new LegacySeries(paymentId);
  }

  /** Read model and webhooks in the background: no transition waits for a publication. */
  publish(input: PublicationInput): void {
    this.projections.push(this.run(input));
  }

  private async run(input: PublicationInput): Promise<void> {
    const { entry, payment } = input;
    // Named for the Temporal UI: which step, to which status, at which version, moving what money.
    const { publishTransition } = proxyActivities<Activities>({
      ...PUBLICATION_OPTIONS,
      summary: stepSummary('publish', payment, entry),
    });
    let plan: LegacyPlan;
    try {
      plan = await publishTransition(input);
    } catch (err) {
      // Bounded: the payment's timers and later transitions go on; operators are alerted.
      const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      await reportProjectionFailure({ paymentId: input.payment.id, version: input.payment.version, error });
      return;
    }
    this.legacy?.continue(plan, entry.event);
  }

  /** The payment is finished: its run may close once its read model and ledger are written. */
  async finish(): Promise<void> {
    await Promise.all(this.projections);
    await this.legacy?.finish();
  }
}
