/**
 * Webhook delivery, workflow side (docs/webhooks.md, "One road"): one host per delivery, the
 * `webhookDeliveryWorkflow` whose id is the delivery's, on the webhooks task queue. A payment's
 * publication (`Publications`) and a payout's step start their events' deliveries once their rows
 * are committed (src/webhooks/deliveryRoad.ts `startFirstSeries`); everything else — a recipient's
 * event, a test, a resend, a recover, a retry-now, a repair — comes in through one update-with-start
 * of that id (`deliverThrough`), answered by `deliverUpdate`. Not children of the payment's run: a
 * child's start and end would be three events and two workflow tasks more of the payment's history
 * each (docs/benchmarks.md).
 */
import {
  type ActivityOptions,
  type LocalActivityOptions,
  ActivityFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities, DeliveryOutcome, PublicationInput, SeriesInput } from '../platform/activities';
import type { DeliveryRetry } from './retrySchedule';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import { type ChainedDelivery, deliveryLabel } from './deliverySeries.rules';
import { type RecordKind, RecordKindKey } from '../platform/searchAttributes.rules';
import { PROJECTION_REFUSED } from '../platform/failures.rules';
import { stepSummary } from '../payments/paymentSummary.rules';
import { DeliverySeries } from './deliverySeries.workflow';

export type { SeriesInput };

/**
 * What a caller asks of a delivery's workflow (src/webhooks/deliveryRoad.ts). Without `wake`: the
 * series named `series` runs, numbered after the `logged` attempts — the run just started for it,
 * or a new series (a resend's, claimed in the delivery log) once the run's last one has ended.
 * With `wake` (retry now, docs/webhooks.md "Retry now"): the running series `series`, waiting
 * between attempts, makes its next one at once; `backoff` says whether the caller saw its attempt in
 * the retry policy's backoff.
 */
export interface DeliverRequest {
  series: string;
  logged: number;
  /** A new series' retry policy (a resend's is the whole policy); the run's own by default. */
  retry?: DeliveryRetry;
  wake?: { backoff: boolean };
}

/** The one way in (named as src/webhooks/deliveryRoad.ts `DELIVER_UPDATE`): answers the number of the attempt that runs next. */
export const deliverUpdate = defineUpdate<{ attempt: number }, [DeliverRequest]>('deliver');

/**
 * A delivery's workflow: its series of attempts (./deliverySeries.workflow.ts), then any series a
 * resend asks for after it (same run while it is open, a new run of the same id once it closed:
 * Temporal runs one at a time). With `then`, the same transition's later deliveries to the same
 * configuration: the next one's workflow starts once this one's first attempt has ended.
 */
export async function webhookDeliveryWorkflow(input: SeriesInput): Promise<DeliveryOutcome> {
  const label = input.label ?? `deliver ${input.deliveryId}`;
  let series = new DeliverySeries(input, { firstAlone: (input.then?.length ?? 0) > 0, label });
  let next: SeriesInput | undefined;
  setHandler(
    deliverUpdate,
    (req) => {
      if (req.wake) return series.retryNow({ logged: req.logged, backoff: req.wake.backoff });
      // This run was started for the series asked for (or the request is a retry of that start); a
      // first series asked for again (a retried payout step or recipient change) joins whatever runs.
      if (req.series === series.name || req.series === ORIGINAL_SERIES) return { attempt: series.firstNumber };
      // The delivery log has claimed a new series: the old one's attempts would send nothing now.
      next = { deliveryId: input.deliveryId, series: req.series, retry: req.retry ?? input.retry, base: req.logged, label };
      series.supersede();
      return { attempt: req.logged + 1 };
    },
    {
      validator: (req) => {
        if (req.wake) {
          if (req.series !== series.name || next) throw new Error(`series ${req.series} is not the one running (${series.name})`);
          series.validateRetryNow({ logged: req.logged, backoff: req.wake.backoff });
        } else if (next && next.series !== req.series && req.series !== ORIGINAL_SERIES)
          throw new Error(`series ${next.series} is about to run`);
      },
    },
  );
  const chain = input.then?.length ? series.firstAttempt.then(() => startDelivery(input.then ?? [], input.retry)) : undefined;
  let outcome: DeliveryOutcome | 'superseded';
  for (;;) {
    try {
      outcome = await series.run();
    } catch (err) {
      // A series that gave up has said so in the log and the trail; a new one may already follow it.
      if (!next) {
        await chain;
        throw err;
      }
      outcome = 'superseded';
    }
    await chain;
    if (!next) break;
    series = new DeliverySeries(next, { label });
    next = undefined;
  }
  return outcome === 'superseded' ? 'skipped' : outcome;
}

/**
 * Starts a chain's next delivery's workflow as a child of the delivery before it, which abandons it
 * on close: its first series, never a second time once it ran. The rest of the chain follows it,
 * each started by the one before.
 */
async function startDelivery(chain: ChainedDelivery[], retry: DeliveryRetry) {
  const [head, ...rest] = chain;
  if (chain.length === 0) return;
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: head.deliveryId,
      // On the delivery's own task queue, fairness key and priority.
      priority: workflowInfo().priority,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // Kept out of the operators' payments list (docs/operations.md).
      typedSearchAttributes: [{ key: RecordKindKey, value: 'delivery' satisfies RecordKind }],
      staticSummary: deliveryLabel(head),
      args: [
        {
          deliveryId: head.deliveryId,
          series: ORIGINAL_SERIES,
          retry,
          base: 0,
          label: deliveryLabel(head),
          ...(rest.length > 0 ? { then: rest } : {}),
        },
      ],
    });
  } catch (err) {
    // Already started (by a repair, or a resend that came first): once is enough.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

// The publication: the projection and the deliveries' rows in one statement. An ordinary activity,
// scheduled by the workflow task that made the transition durable, so the read model never runs
// ahead of the workflow. Outages are retried for hours; data PostgreSQL refuses is not.
const PUBLICATION_OPTIONS: ActivityOptions & LocalActivityOptions = {
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

/** A payment run's publications: each step's projection, whose activity starts the deliveries it owes. */
export class Publications {
  /** Projections (read model and ledger) and their deliveries' starts still running: a finished run waits for these. */
  private readonly projections: Promise<unknown>[] = [];

  /**
   * The transition's projection (read model, ledger, trail and its deliveries' rows), settled once
   * committed (or reported failed for good); the deliveries' series go on in the background. The
   * step's handler awaits it before it answers (docs/architecture.md, "One writer per aggregate").
   */
  publish(input: PublicationInput, from: 'state' | 'input' = 'state'): Promise<void> {
    const projection = this.run(input, from);
    this.projections.push(projection);
    return projection;
  }

  private async run(input: PublicationInput, from: 'state' | 'input'): Promise<void> {
    const { entry, payment } = input;
    // Named for the Temporal UI: which step, to which status, at which version, moving what money.
    const options = { ...PUBLICATION_OPTIONS, summary: stepSummary('publish', payment, entry) };
    // The creation's publication is made of the run's input alone, durable before its first task: as
    // a local activity it answers the create from that task, and a task that fails writes the same
    // rows again. A later step's is made of the state that task reached, so it runs once that state
    // is durable, as an ordinary activity (docs/architecture.md, "One writer per aggregate").
    const { publishTransition } = from === 'input' ? proxyLocalActivities<Activities>(options) : proxyActivities<Activities>(options);
    try {
      await publishTransition(input);
    } catch (err) {
      // Bounded: the payment's timers and later transitions go on; operators are alerted.
      const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      await reportProjectionFailure({ paymentId: input.payment.id, version: input.payment.version, error });
    }
  }

  /** The payment is finished: its run closes once its read model and ledger are written and its deliveries' workflows started. */
  async finish(): Promise<void> {
    await Promise.all(this.projections);
  }
}
