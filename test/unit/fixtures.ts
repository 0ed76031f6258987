/** A payment as the workflow holds it, for the stack-free unit tests; each test overrides what it checks. */
import type { PaymentState } from '../../src/domain/payment';

export function paymentState(overrides: Partial<PaymentState> = {}): PaymentState {
  return {
    id: 'pay_01JD0000000000000000000000',
    accountId: 'acct_1',
    livemode: false,
    amountMinor: '12550',
    amountExponent: 2,
    currency: 'USD',
    status: 'pending_deposit',
    payerEmail: 'payer@example.com',
    recipientEmail: 'seller@example.com',
    description: 'a lamp',
    metadata: { order: '42' },
    depositDeadline: '2026-11-30T12:00:00.000Z',
    autoReleaseAfterSeconds: null,
    createdAt: '2026-11-23T12:00:00.000Z',
    updatedAt: '2026-11-23T12:00:00.000Z',
    version: 1,
    platformFeeMinor: '0',
    heldMinor: '0',
    releasedMinor: '0',
    refundedMinor: '0',
    feeCollectedMinor: '0',
    ...overrides,
  };
}
