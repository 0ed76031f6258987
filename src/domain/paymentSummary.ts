/**
 * A payment's lines in the Temporal UI. Apart from the view (src/domain/paymentView.ts) so that the
 * workflow bundle holds neither zod nor the ISO 4217 table: every module it imports runs again at
 * each workflow's start (docs/benchmarks.md).
 */
import { majorOf, storedExponent } from './amountText';
import type { PaymentState } from './payment';

/** One line for the Temporal UI's summary: the amount in major units, the currency and both parties. */
export function summary(s: PaymentState): string {
  return `${majorOf(s.amountMinor, storedExponent(s))} ${s.currency} from ${s.payerEmail} to ${s.recipientEmail}`;
}

/** The payment's current details in the Temporal UI: its status and amount. */
export function details(s: PaymentState): string {
  return `**${s.status}** — ${majorOf(s.amountMinor, storedExponent(s))} ${s.currency}`;
}
