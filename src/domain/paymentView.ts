import { storedExponent, toMajor } from './money';
import type { PaymentState } from './payment';

/** The payment as the API and webhook `data` show it (PRODUCT.md part 2): amounts in major units. */
export interface PaymentView {
  id: string;
  object: 'payment';
  amount: number;
  currency: string;
  status: string;
  payer_email: string;
  recipient_email: string;
  description: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  deposit_deadline: string;
  auto_release_after_seconds: number | null;
  created_at: string;
  updated_at: string;
}

export function paymentView(s: PaymentState): PaymentView {
  return {
    id: s.id,
    object: 'payment',
    amount: toMajor(s.amountMinor, s.currency, storedExponent(s)),
    currency: s.currency,
    status: s.status,
    payer_email: s.payerEmail,
    recipient_email: s.recipientEmail,
    description: s.description,
    metadata: s.metadata,
    livemode: s.livemode,
    deposit_deadline: s.depositDeadline,
    auto_release_after_seconds: s.autoReleaseAfterSeconds,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** Exact minor units as a decimal string, for search attributes and summaries. */
export function summary(s: PaymentState): string {
  return `${toMajor(s.amountMinor, s.currency, storedExponent(s))} ${s.currency} from ${s.payerEmail} to ${s.recipientEmail}`;
}
