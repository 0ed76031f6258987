/**
 * The activities, the workflows' only way out, one file per concern: a transition's publication,
 * webhook delivery, the custody trail's tree head, the ledger's verification, a payout's steps, the bank inbox,
 * the custody account's reconciliation, a recipient's pending money made available.
 */
import { auditHeadActivities } from '../audit/treeHead.activities';
import { bankInboxActivities } from '../payouts/bankInbox.activities';
import { bankReturnActivities } from '../payouts/bankReturn.activities';
import { deliveryActivities } from '../webhooks/delivery.activities';
import { ledgerActivities } from '../ledger/ledgerCheck.activities';
import { payoutActivities } from '../payouts/payout.activities';
import { payoutBatchActivities } from '../payouts/payoutBatch.activities';
import { publicationActivities } from '../payments/publication.activities';
import { reconciliationActivities } from '../reconciliation/reconciliation.activities';
import { recipientActivities } from '../recipients/recipient.activities';
import type { ActivityResourcesWithClient } from './activityResources';

export type { DeliveryOutcome, SeriesInput } from '../webhooks/delivery.activities';
export type { PayoutStepInput } from '../payouts/payout.activities';
export type { DeliveryPlan, DeliveryTarget, PublicationInput } from '../payments/publication.activities';
export type { ChainedDelivery } from '../webhooks/deliverySeries.rules';
export { type DeliveryRetry, deliveryRetry, webhookTaskQueue } from '../webhooks/retrySchedule';

export function createActivities(deps: ActivityResourcesWithClient) {
  return {
    ...publicationActivities(deps),
    ...deliveryActivities(deps),
    ...auditHeadActivities(deps),
    ...ledgerActivities(deps),
    ...payoutActivities(deps),
    ...payoutBatchActivities(deps),
    ...bankInboxActivities(deps),
    ...bankReturnActivities(deps),
    ...reconciliationActivities(deps),
    ...recipientActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
