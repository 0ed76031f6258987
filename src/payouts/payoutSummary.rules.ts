/**
 * A payout's lines in the Temporal UI, as a payment's are told (src/payments/paymentSummary.rules.ts): the
 * money and where it is, nothing personal (never the account number or the holder's name; `last4`
 * is what the API shows too). Pure, without the ISO 4217 table: the payout carries its exponent.
 */
import { formatMinor } from '../ledger/amountText.rules';
import { type PayoutAction, type PayoutFailureCode, type PayoutStatus, PAYOUT_CREATION, PAYOUT_TRANSITIONS } from './payout.rules';

/** What the workflow knows of its payout. */
export interface PayoutStoryState {
  amountMinor: bigint;
  amountExponent: number;
  currency: string;
  status: PayoutStatus;
  bankAccountId: string;
  last4: string;
  failureCode: PayoutFailureCode | null;
}

const major = (p: PayoutStoryState) => `${formatMinor(p.amountMinor, p.amountExponent)} ${p.currency}`;

/** The summary line: the amount and where it goes. */
export function payoutSummary(p: PayoutStoryState): string {
  return `${major(p)} to ${p.bankAccountId} (…${p.last4})`;
}

/** An activity's summary for a step: the step, the status it led to, and the money it moved. */
export function payoutStepSummary(p: PayoutStoryState, action: PayoutAction | 'create'): string {
  const step = action === 'create' ? PAYOUT_CREATION : PAYOUT_TRANSITIONS.find((t) => t.action === action);
  if (!step) throw new Error(`no payout step ${action}`);
  const moved = step.movement ? ` — ${major(p)} ${step.movement.from} → ${step.movement.to}` : '';
  const why = (action === 'fail' || action === 'return') && p.failureCode ? ` (${p.failureCode})` : '';
  return `${action} → ${step.to}${why}${moved}`;
}

/** The payout's current details (markdown): its status, the amount, and where the money is. */
export function payoutDetails(p: PayoutStoryState): string {
  const where: Record<PayoutStatus, string> = {
    pending: 'in_transit, waiting for its file',
    in_transit: 'in_transit, at the bank',
    paid: 'paid_out',
    failed: 'back on available',
    canceled: 'back on available',
    returned: 'back on available',
  };
  const failure = p.failureCode ? ` · ${p.failureCode}` : '';
  return `**${p.status}**${failure} — ${major(p)} to ${p.bankAccountId} (…${p.last4})\n\nmoney: ${where[p.status]}`;
}
