/**
 * An event's first series, started by the worker's step that recorded it (docs/webhooks.md, "One
 * road"): a payout's, a bank credit's booking or return. Not an activity itself: the activities'
 * shared start of the deliveries they recorded.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Scope } from '../tenants/tenancy.rules';
import { firstSeriesStart } from './deliverySeries.rules';
import { startFirstSeries } from './deliveryRoad';
import { deliveryRetry, webhookTaskQueue } from './retrySchedule';
/**
 * The deliveries an event recorded with its object's step, not attempted yet (a payout's, a bank
 * credit's), each its first series started on the webhooks task queue; one whose workflow ran is left as it is.
 */
export async function startRecordedDeliveries(
  temporal: Client,
  config: Config,
  scope: Scope,
  recorded: { id: string; webhook_id: string; event: string }[],
): Promise<void> {
  for (const d of recorded) {
    const head = { deliveryId: d.id, webhookId: d.webhook_id, event: d.event };
    await startFirstSeries(temporal, firstSeriesStart(head, scope, webhookTaskQueue(config), deliveryRetry(config)), { eager: true });
  }
}
