import { describe, expect, it } from 'vitest';
import * as failures from '../../src/platform/failures.rules';
import { ORIGINAL_SERIES } from '../../src/webhooks/deliveryAttempt.rules';

/**
 * Failure types and series names are recorded in workflow histories and the delivery table, and the
 * services map failures by type: renaming one is a change to running workflows and stored rows.
 */
describe('names that histories and rows hold', () => {
  it('keeps every failure type as recorded', () => {
    expect({ ...failures }).toEqual({
      INVALID_TRANSITION: 'InvalidTransition',
      INVALID_AMOUNT: 'InvalidAmount',
      UNKNOWN_MILESTONE: 'UnknownMilestone',
      DISPUTE_OUT_OF_TURN: 'DisputeOutOfTurn',
      UNKNOWN_OFFER: 'UnknownOffer',
      RESOLUTION_REQUIRED: 'ResolutionRequired',
      LIVE_PAYMENT: 'LivePayment',
      INVALID_ARGUMENT: 'InvalidArgument',
      INVALID_PAYOUT_TRANSITION: 'InvalidPayoutTransition',
      PAYOUT_STEP_REFUSED: 'PayoutStepRefused',
      CUSTODY_ACCOUNT_MISSING: 'CustodyAccountMissing',
      PROJECTION_REFUSED: 'ProjectionRefused',
      AUDIT_LOG_INCONSISTENT: 'AuditLogInconsistent',
      WEBHOOK_URL_REFUSED: 'WebhookUrlRefused',
      DELIVERY_NOT_FOUND: 'DeliveryNotFound',
      WEBHOOK_GONE: 'WebhookGone',
      WEBHOOK_DISABLED: 'WebhookDisabled',
      WEBHOOK_DELIVERY_FAILED: 'WebhookDeliveryFailed',
      WEBHOOK_ENDPOINT_BUSY: 'WebhookEndpointBusy',
      WEBHOOK_DELIVERY_EXHAUSTED: 'WebhookDeliveryExhausted',
      FINAL_DELIVERY_FAILURES: ['WebhookUrlRefused', 'DeliveryNotFound', 'WebhookGone', 'WebhookDisabled'],
    });
  });

  it('names the series an event starts as the migration does', () => {
    expect(ORIGINAL_SERIES).toBe('original');
  });
});
