/**
 * Starting a delivery's first series from an activity (docs/webhooks.md, "One road"): its workflow,
 * named by the delivery's id, on the webhooks task queue. The running one when a retried activity
 * meets it, none when it has ended: a series is never started twice.
 */
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from '../platform/config';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import { DELIVERY_WORKFLOW, seriesStartOptions } from './deliverySeries.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { deliveryRetry, webhookTaskQueue } from './retrySchedule';

/** A delivery whose series a publication starts, with those of the same configuration that follow it. */
export interface ChainedDelivery {
  deliveryId: string;
  webhookId: string;
  event: string;
  /** Deliveries of the same transition to the same configuration, in order: each starts once this one's first attempt ended. */
  then?: ChainedDelivery[];
}

export async function startFirstSeries(temporal: Client, config: Config, scope: Scope, d: ChainedDelivery): Promise<void> {
  try {
    await temporal.workflow.start(DELIVERY_WORKFLOW, {
      ...seriesStartOptions(d.deliveryId, scope, webhookTaskQueue(config), `deliver ${d.event} → ${d.webhookId}`, true),
      args: [
        {
          deliveryId: d.deliveryId,
          series: ORIGINAL_SERIES,
          retry: deliveryRetry(config),
          base: 0,
          ...(d.then?.length ? { then: d.then } : {}),
        },
      ],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
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
