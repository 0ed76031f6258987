/** A payment's money as the workflow keeps it (docs/money.md): minor units as decimal text, read as bigint. */
import type { Amounts } from './ledger';
import type { PaymentState } from './payment';

/** The amount and fee a payment's money is measured against. */
export function moneyOf(state: PaymentState): { amount: bigint; platformFee: bigint } {
  return { amount: BigInt(state.amountMinor), platformFee: BigInt(state.platformFeeMinor) };
}

/** The payment's amounts, as the workflow keeps them. */
export function amountsOf(state: PaymentState): Amounts {
  return {
    held: BigInt(state.heldMinor),
    released: BigInt(state.releasedMinor),
    refunded: BigInt(state.refundedMinor),
    feeCollected: BigInt(state.feeCollectedMinor),
  };
}

/** The state with these amounts written out. */
export function withAmounts(state: PaymentState, a: Amounts): PaymentState {
  return {
    ...state,
    heldMinor: a.held.toString(),
    releasedMinor: a.released.toString(),
    refundedMinor: a.refunded.toString(),
    feeCollectedMinor: a.feeCollected.toString(),
  };
}
