/**
 * How a delivery's workflow is started (docs/webhooks.md, "One road"): one workflow per delivery on
 * the webhooks task queue, its id the delivery's, so nothing starts it twice and at most one series
 * runs per delivery; the account and mode as Temporal's fairness key, and live deliveries before
 * test ones.
 */
import { type Priority, WorkflowIdReusePolicy } from '@temporalio/common';
import { type RecordKind, RecordKindKey } from '../platform/searchAttributes.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';

/**
 * A delivery activity's start-to-close time-out beyond its HTTP time-out: the database writes around
 * the call. An attempt's lease on its endpoint lasts as long as its activity may run.
 */
export const DELIVERY_ACTIVITY_MARGIN_MS = 10_000;

/**
 * How soon an attempt that found its endpoint full is made again when nothing better is known (a
 * series whose activity's own attempts all were turned away waits this in its workflow).
 */
export const ENDPOINT_BUSY_RETRY_MS = 1_000;

/** The shortest wait after a full endpoint's turn-away (before the spread). */
export const ENDPOINT_BUSY_RETRY_MIN_MS = 100;

/** The longest wait between a full endpoint's turn-aways of one delivery (before the spread). */
export const ENDPOINT_BUSY_RETRY_MAX_MS = 32_000;

/**
 * The wait after a delivery's `logged`-th attempt found its endpoint full: about as long as the
 * oldest attempt in flight there has run (`oldestInFlightMs`), at least ENDPOINT_BUSY_RETRY_MIN_MS,
 * doubled for each attempt the log holds before it, at most ENDPOINT_BUSY_RETRY_MAX_MS. A receiver
 * that answers at once frees a lease within about that long, so a burst towards it is retried within
 * a fraction of a second; a flood towards a slow one waits seconds, longer each time, so that its
 * turn-aways do not take the machine from the other tenants (docs/webhooks.md, "No tenant slows another").
 */
export function endpointBusyDelayMs(logged: number, oldestInFlightMs = ENDPOINT_BUSY_RETRY_MS): number {
  const first = Math.min(ENDPOINT_BUSY_RETRY_MAX_MS, Math.max(ENDPOINT_BUSY_RETRY_MIN_MS, Math.round(oldestInFlightMs)));
  // However many doublings (2 ** n is Infinity past 1023), the wait stays at most the longest.
  return Math.min(ENDPOINT_BUSY_RETRY_MAX_MS, first * 2 ** Math.max(0, logged - 1));
}

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
 * The start options of a delivery's workflow. `once`: its first series (a payment's or a payout's
 * or a recipient's event, a test), which never runs again once a run of that id has closed;
 * otherwise a later series (resend, recover, repair) that may follow a closed run. A running one is
 * joined either way (the one way in, src/webhooks/deliveryRoad.ts, uses Temporal's `USE_EXISTING`).
 */
export function seriesStartOptions(deliveryId: string, scope: Scope, taskQueue: string, summary: string, once: boolean) {
  return {
    workflowId: deliveryId,
    taskQueue,
    workflowIdReusePolicy: once ? WorkflowIdReusePolicy.REJECT_DUPLICATE : WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    priority: tenantPriority(scope),
    // Kept out of the operators' payments list (docs/operations.md).
    typedSearchAttributes: [{ key: RecordKindKey, value: 'delivery' satisfies RecordKind }],
    // The configuration's id, never its URL, which may carry a token (docs/architecture.md, "Personal data").
    staticSummary: summary,
  };
}

/** A delivery a run starts, with those of the same transition to the same configuration that follow it. */
export interface ChainedDelivery {
  deliveryId: string;
  webhookId: string;
  event: string;
  /** Deliveries of the same transition to the same configuration, in order: each starts once this one's first attempt ended. */
  then?: ChainedDelivery[];
}

/** For the Temporal UI: the event and the configuration's id (never its URL). */
export function deliveryLabel(d: { event: string; webhookId: string }): string {
  return `deliver ${d.event} → ${d.webhookId}`;
}

/**
 * A transition's deliveries as chains, one per configuration, in the planned order: a receiver
 * subscribed to both of a split's events gets the refunded part's first attempt first.
 */
export function chainsOf(planned: { delivery: { id: string; event: string }; webhook: { id: string } }[]): ChainedDelivery[] {
  const byWebhook = new Map<string, ChainedDelivery[]>();
  for (const { delivery, webhook } of planned) {
    byWebhook.set(webhook.id, [
      ...(byWebhook.get(webhook.id) ?? []),
      { deliveryId: delivery.id, webhookId: webhook.id, event: delivery.event },
    ]);
  }
  return [...byWebhook.values()].map(([head, ...rest]) => (rest.length > 0 ? { ...head, then: rest } : head));
}

/**
 * An event's first series of a delivery (with the rest of its chain, a split's): its workflow's
 * start options and input, for `startFirstSeries` (src/webhooks/deliveryRoad.ts).
 */
export function firstSeriesStart<Retry>(head: ChainedDelivery, scope: Scope, taskQueue: string, retry: Retry) {
  const { then, ...delivery } = head;
  const label = deliveryLabel(delivery);
  return {
    ...seriesStartOptions(delivery.deliveryId, scope, taskQueue, label, true),
    args: [{ deliveryId: delivery.deliveryId, series: ORIGINAL_SERIES, retry, base: 0, label, ...(then?.length ? { then } : {}) }],
  };
}
