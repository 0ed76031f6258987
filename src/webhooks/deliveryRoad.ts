/**
 * The one way in to a delivery from outside a run (docs/webhooks.md, "One road"). An event's first
 * series (a payment's transition, a payout's step) is one start of the workflow named by the
 * delivery's id (`startFirstSeries`); a recipient's event, a test, a resend, a recover, a retry-now and a repair are each one
 * update-with-start of that workflow. Temporal starts that workflow when
 * no run of it is open and hands the update to the open one otherwise (`USE_EXISTING`), so a
 * delivery has one host whatever asks. A plain helper (docs/architecture.md): its callers build the
 * start options (src/webhooks/deliverySeries.rules.ts `seriesStartOptions`).
 */
import type { Workflow } from '@temporalio/common';
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { withinDeadline } from '../platform/lib/temporalDeadline';

/** The delivery workflow's type and its one update (src/webhooks/webhookDelivery.workflow.ts, held equal by test/unit/delivery-series.test.ts). */
export const DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export const DELIVER_UPDATE = 'deliver';

/**
 * What a caller asks (`DeliverRequest`, src/webhooks/webhookDelivery.workflow.ts, which this plain
 * helper may not import): the series, and the attempts the log holds.
 */
export interface DeliverRequestShape {
  series: string;
  logged: number;
}

/** A delivery workflow's start options: its id, queue, reuse policy, priority, and its input. */
export type DeliveryStart = Omit<WorkflowStartOptions, 'workflowIdConflictPolicy'>;

/**
 * Runs `request` in the delivery's workflow, starting it with `start` when no run of it is open:
 * the number of the attempt that runs next. Null when the start options refuse a closed run's id
 * (a first series, `once`, that already ran). A refused update (an attempt in flight) throws the
 * client's WorkflowUpdateFailedError.
 */
export async function deliverThrough(temporal: Client, start: DeliveryStart, request: DeliverRequestShape): Promise<number | null> {
  const startWorkflowOperation = new WithStartWorkflowOperation(DELIVERY_WORKFLOW, {
    ...start,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  try {
    const answer = await withinDeadline(temporal, () =>
      temporal.workflow.executeUpdateWithStart<Workflow, { attempt: number }, [DeliverRequestShape]>(DELIVER_UPDATE, {
        args: [request],
        startWorkflowOperation,
      }),
    );
    return answer.attempt;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw err;
  }
}

/**
 * Starts an event's first series in the delivery's workflow, once: a start again (a retried
 * publication) joins the open run, and one refused because the run has closed (`once`) changes
 * nothing. It waits for no worker, only for Temporal to record the start, so a payment's step never
 * waits on the webhooks worker.
 *
 * `eager` (a worker's step, whose client shares the worker's connection): Temporal hands the run's
 * first workflow task back in the start's answer to this process's webhooks worker when it has a
 * free slot, instead of through the task queue's backlog, where a tenant's flood of first tasks was
 * seen to hold another's for seconds (docs/benchmarks.md, "The neighbours test: eager starts and spaced turn-aways").
 */
export async function startFirstSeries(temporal: Client, start: DeliveryStart, { eager = false } = {}): Promise<void> {
  try {
    await withinDeadline(temporal, () =>
      temporal.workflow.start(DELIVERY_WORKFLOW, {
        ...start,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        requestEagerStart: eager,
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
