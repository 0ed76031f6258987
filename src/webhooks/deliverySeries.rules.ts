/**
 * How a delivery's series of attempts is started (docs/webhooks.md, "One road"): one workflow per
 * delivery on the webhooks task queue, its id the delivery's, so a retried publication starts
 * nothing twice and at most one series runs per delivery; the account and mode as Temporal's
 * fairness key, and live deliveries before test ones.
 */
import { type Priority, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { type RecordKind, RecordKindKey } from '../platform/searchAttributes.rules';
import type { Scope } from '../tenants/tenancy.rules';

/** The workflow type of every series (src/webhooks/webhookDelivery.workflow.ts). */
export const DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

/**
 * A delivery activity's start-to-close time-out beyond its HTTP time-out: the database writes around
 * the call. An attempt's lease on its endpoint lasts as long as its activity may run.
 */
export const DELIVERY_ACTIVITY_MARGIN_MS = 10_000;

/**
 * How soon an attempt that found its endpoint full is made again (Temporal's `nextRetryDelay`,
 * spread up to twice this): about as long as a receiver that answers at once takes to free a lease
 * for a burst, far less than the retry policy's first interval.
 */
export const ENDPOINT_BUSY_RETRY_MS = 1_000;

/** Temporal's priority keys run 1 (first) to 5; live deliveries go before test ones. */
export const LIVE_PRIORITY = 1;
export const TEST_PRIORITY = 3;

/** The engine's fairness key of a tenant's delivery work: its account and mode (at most 64 bytes). */
export function fairnessKey(scope: Scope): string {
  return `${scope.accountId}:${scope.livemode ? 'live' : 'test'}`;
}

/** A tenant's work — its payments' runs and its deliveries — as Temporal dispatches it: fairness by account and mode, live before test. */
export function tenantPriority(scope: Scope): Priority {
  return { priorityKey: scope.livemode ? LIVE_PRIORITY : TEST_PRIORITY, fairnessKey: fairnessKey(scope) };
}

/**
 * The start options of a delivery's series. `first`: the series a publication or a test starts —
 * the existing run when one runs, nothing when one ran (a retried publication); otherwise a new
 * series after the last has ended (resend, recover, repair), refused while one runs.
 */
export function seriesStartOptions(deliveryId: string, scope: Scope, taskQueue: string, summary: string, first: boolean) {
  return {
    workflowId: deliveryId,
    taskQueue,
    workflowIdReusePolicy: first ? WorkflowIdReusePolicy.REJECT_DUPLICATE : WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: first ? WorkflowIdConflictPolicy.USE_EXISTING : WorkflowIdConflictPolicy.FAIL,
    priority: tenantPriority(scope),
    // Kept out of the operators' payments list (docs/operations.md).
    typedSearchAttributes: [{ key: RecordKindKey, value: 'delivery' satisfies RecordKind }],
    // The configuration's id, never its URL, which may carry a token (docs/architecture.md, "Personal data").
    staticSummary: summary,
  };
}
