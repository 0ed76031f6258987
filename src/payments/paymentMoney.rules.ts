/**
 * A payment's money as the workflow keeps it (docs/money.md), in minor units. A payment and each of
 * its milestones keep their amounts in the same four fields, so one helper reads and one writes both.
 */
import type { Amounts } from '../ledger/ledger.rules';
import type { PaymentState } from './paymentTypes.rules';

/** The four amounts as a payment or a milestone keeps them. */
type AmountFields = Pick<PaymentState, 'heldMinor' | 'releasedMinor' | 'refundedMinor' | 'feeCollectedMinor'>;

/** The amount and fee a payment's money is measured against. */
export function moneyOf(state: Pick<PaymentState, 'amountMinor' | 'platformFeeMinor'>): { amount: bigint; platformFee: bigint } {
  return { amount: state.amountMinor, platformFee: state.platformFeeMinor };
}

/** The amounts of a payment or of one milestone, as the workflow keeps them. */
export function amountsOf(kept: AmountFields): Amounts {
  return {
    held: kept.heldMinor,
    released: kept.releasedMinor,
    refunded: kept.refundedMinor,
    feeCollected: kept.feeCollectedMinor,
  };
}

/** The payment or milestone with these amounts written out. */
export function withAmounts<T extends AmountFields>(kept: T, a: Amounts): T {
  return {
    ...kept,
    heldMinor: a.held,
    releasedMinor: a.released,
    refundedMinor: a.refunded,
    feeCollectedMinor: a.feeCollected,
  };
}
