/**
 * A payment funded by bank transfer taking a credit the bank booked with its reference (docs/bank.md,
 * "Funding by bank transfer"): exactly what it lacks deposits it (`payment.deposited`); less keeps it
 * `pending_deposit` with `amount_received` raised (`payment.partially_funded`), later credits adding
 * up; more deposits it with its amount, and the excess is left over, an unapplied credit.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */
import { ZERO_AMOUNTS } from '../ledger/ledger.rules';
import { type PlannedStep, planSteps } from './paymentPlan.rules';
import { dueTimer } from './paymentTimers.rules';
import type { PaymentState, ReceivedCredit } from './paymentTypes.rules';

/** A credit the bank booked, as the payment's `receiveFunds` update carries it: ids, amount and booking, nothing personal. */
export interface FundsMessage {
  /** The credit's id (`bc_…`): a second update with it changes nothing. */
  creditId: string;
  amountMinor: bigint;
  /** `YYYY-MM-DD`, the bank's `BookgDt`. */
  bookedOn: string;
  bankEntryRef: string | null;
  /** An unapplied credit applied by the account (`POST /api/v1/bank_credits/:id/apply`), not a new booking. */
  applied?: true;
}

export type FundsRefusal = {
  ok: false;
  reason: 'not_bank_transfer' | 'not_pending_deposit' | 'deadline_passed' | 'invalid_amount';
  message: string;
};

export type FundsPlan =
  | {
      ok: true;
      step: PlannedStep;
      credit: ReceivedCredit;
      /** What the payment received by transfer after the step (at most its amount). */
      received: bigint;
      /** What it did not take: an unapplied credit of its account. */
      excessMinor: bigint;
    }
  | FundsRefusal;

export function planFunds(state: PaymentState, msg: FundsMessage, now: number): FundsPlan {
  const refuse = (reason: FundsRefusal['reason'], message: string): FundsRefusal => ({ ok: false, reason, message });
  if (state.funding !== 'bank_transfer') return refuse('not_bank_transfer', `payment ${state.id} is not funded by bank transfer`);
  if (state.status !== 'pending_deposit') {
    return refuse('not_pending_deposit', `payment ${state.id} is ${state.status}: only a payment pending_deposit takes funds`);
  }
  if (msg.amountMinor <= 0n) return refuse('invalid_amount', 'a credit is more than 0');
  // Its deadline has passed: the payment is cancelled at once, and the credit is an unapplied one.
  if (dueTimer(state, now) === 'deadline') return refuse('deadline_passed', `payment ${state.id}'s deposit deadline has passed`);
  const before = state.amountReceivedMinor ?? 0n;
  const lacking = state.amountMinor - before;
  const applied = msg.amountMinor < lacking ? msg.amountMinor : lacking;
  const received = before + applied;
  const credit: ReceivedCredit = {
    id: msg.creditId,
    amountMinor: msg.amountMinor,
    appliedMinor: applied,
    bookedOn: msg.bookedOn,
    bankEntryRef: msg.bankEntryRef,
    ...(msg.applied ? { applied: true as const } : {}),
  };
  const excessMinor = msg.amountMinor - applied;
  if (received < state.amountMinor) {
    const step: PlannedStep = {
      action: 'receive_funds',
      to: 'pending_deposit',
      movement: { deposited: 0n, refunded: 0n, released: 0n, fee: 0n },
      after: ZERO_AMOUNTS,
      milestones: state.milestones,
      changes: [],
      events: [{ event: 'payment.partially_funded' }],
    };
    return { ok: true, step, credit, received, excessMinor };
  }
  // Reached: the deposit's own step (every milestone into custody, payment.deposited), taken by the bank.
  const deposit = planSteps(state, { action: 'deposit' }, state.milestones, now, false);
  return { ok: true, step: { ...deposit, action: 'receive_funds' }, credit, received, excessMinor };
}
