/**
 * The activities, the workflows' only way out, one file per concern: a transition's publication,
 * webhook delivery, the custody trail's tree head, the ledger's verification, a payout's steps, the bank inbox.
 */
import { auditHeadActivities } from './auditHead';
import { bankInboxActivities } from './bankInbox';
import { deliveryActivities } from './delivery';
import { ledgerActivities } from './ledger';
import { payoutActivities } from './payout';
import { payoutBatchActivities } from './payoutBatch';
import { publicationActivities } from './publication';
import type { ActivityResourcesWithClient } from './resources';

export type { DeliveryOutcome, EndpointBusy, SeriesInput } from './delivery';
export type { PayoutStepInput } from './payout';
export type { DeliveryPlan, DeliveryTarget, PublicationInput, SeriesPlan } from './publication';
export type { ChainedDelivery } from './seriesStart';
export { type DeliveryRetry, deliveryRetry, webhookTaskQueue } from '../webhookRules/retryPolicy';

export function createActivities(deps: ActivityResourcesWithClient) {
  return {
    ...publicationActivities(deps),
    ...deliveryActivities(deps),
    ...auditHeadActivities(deps),
    ...ledgerActivities(deps),
    ...payoutActivities(deps),
    ...payoutBatchActivities(deps),
    ...bankInboxActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
