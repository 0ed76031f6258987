/** A payment as the workflow holds it, for the stack-free unit tests; each test overrides what it checks. */
import { type PaymentState } from '../../src/payments/paymentTypes.rules';
import type { PaymentDetails, PaymentPersonalFields } from '../../src/payments/paymentRecord.rules';
import { wholeMilestone } from '../../src/payments/milestones.rules';
import type { BankFile } from '../../src/payouts/bankFileRead.format';

/** Without `milestones`, the payment's one milestone of the whole amount mirrors its status and amounts. */
export function paymentState(overrides: Partial<PaymentState> = {}): PaymentState {
  const base: Omit<PaymentState, 'milestones' | 'staged'> = {
    id: 'pay_01JD0000000000000000000000',
    accountId: 'acct_1',
    livemode: false,
    amountMinor: 12550n,
    amountExponent: 2,
    currency: 'USD',
    status: 'pending_deposit',
    depositDeadline: '2026-11-30T12:00:00.000Z',
    autoReleaseAfterSeconds: null,
    createdAt: '2026-11-23T12:00:00.000Z',
    updatedAt: '2026-11-23T12:00:00.000Z',
    version: 1,
    platformFeeMinor: 0n,
    heldMinor: 0n,
    releasedMinor: 0n,
    refundedMinor: 0n,
    feeCollectedMinor: 0n,
    ...overrides,
  };
  return { ...base, milestones: overrides.milestones ?? [wholeMilestone(base)], staged: overrides.staged ?? false };
}

/** The payment with its (first) milestone's auto-release due at `at` (ms). */
export function releasingAt(state: PaymentState, at: number): PaymentState {
  const [first, ...rest] = state.milestones;
  return { ...state, milestones: [{ ...first, releaseAt: new Date(at).toISOString() }, ...rest] };
}

/**
 * A payment created with milestones of these amounts (minor units), ids `ms_1`, `ms_2`, …, each
 * with the payment's status, recipient and auto-release; its amount their sum. Pending deposit
 * unless overridden.
 */
export function stagedPayment(amounts: readonly bigint[], overrides: Partial<Omit<PaymentState, 'milestones'>> = {}): PaymentState {
  const base = paymentState({ amountMinor: amounts.reduce((sum, a) => sum + a, 0n), staged: true, ...overrides });
  const [template] = base.milestones;
  return {
    ...base,
    milestones: amounts.map((a, i) => ({ ...template, id: `ms_${i + 1}`, amountMinor: a })),
  };
}

/**
 * The payment as the service answers it: the state with personal fields (these unless overridden),
 * each milestone with the payment's recipient and, on a staged payment, the reference `part-1`, `part-2`, ….
 */
export function paymentDetails(state: PaymentState = paymentState(), personal: Partial<PaymentPersonalFields> = {}): PaymentDetails {
  const fields = {
    payerEmail: 'payer@example.com',
    recipientEmail: 'seller@example.com',
    description: 'a lamp',
    metadata: { order: '42' },
    ...personal,
  };
  const { disputes: _d, ...rest } = state;
  return {
    ...rest,
    ...fields,
    milestones: state.milestones.map((m, i) => ({
      ...m,
      reference: state.staged ? `part-${i + 1}` : null,
      description: null,
      recipientEmail: fields.recipientEmail,
    })),
  };
}

/** A bank statement (camt.053) of `entries`, with no group status and no original message. */
export const statementOf = (entries: BankFile['entries']): BankFile => ({
  messageType: 'camt.053.001.08',
  messageId: 'M',
  createdAt: '2026-11-30T00:00:00Z',
  originalMessageId: null,
  groupStatus: null,
  groupReasonCode: null,
  entries,
});

/** planTransition's answer to a step the payment's status refuses: the status, the actions it allows, the message. */
export const refusedStep = (status: string, allowed: readonly string[], message: string) => ({
  ok: false,
  reason: 'invalid_transition',
  status,
  message,
  allowed,
});
