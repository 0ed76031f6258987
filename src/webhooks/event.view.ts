/**
 * An event as the Events API shows it (docs/webhooks.md): the object — a payment, a payout, a
 * recipient or a bank credit — as it was right after the event and, for a milestone event, that milestone. Its
 * schema is src/webhooks/events.schemas.ts's.
 */
import type { PaymentView } from '../payments/payment.view';
import type { PayoutView } from '../payouts/payout.view';
import type { RecipientView } from '../recipients/recipient.view';
import type { BankCreditView } from '../payouts/bankCredit.view';
import type { WebhookEvent } from './webhookEvents.rules';

/** What the view reads of one stored event (the repository's row, src/webhooks/events.repository.ts, holds these columns). */
export interface StoredEvent {
  id: string;
  /** Whose event it is: one of the four is set. */
  payment_id: string | null;
  payout_id?: string | null;
  recipient_id?: string | null;
  bank_credit_id?: string | null;
  type: WebhookEvent;
  sequence: number;
  /** The payment (a payment's event), the payout, the recipient or the bank credit, as the API shows it. */
  data: PaymentView | PayoutView | RecipientView | BankCreditView;
  created_at: Date;
  milestone_id: string | null;
}

export function eventView(e: StoredEvent) {
  return {
    id: e.id,
    object: 'event' as const,
    type: e.type,
    ...(e.payment_id ? { payment_id: e.payment_id } : {}),
    ...(e.payout_id ? { payout_id: e.payout_id } : {}),
    ...(e.recipient_id ? { recipient_id: e.recipient_id } : {}),
    ...(e.bank_credit_id ? { bank_credit_id: e.bank_credit_id } : {}),
    sequence: e.sequence,
    created_at: e.created_at.toISOString(),
    // A milestone event's milestone, as its webhook envelope shows it.
    ...(e.milestone_id && 'milestones' in e.data ? { milestone: e.data.milestones.find((m) => m.id === e.milestone_id) } : {}),
    data: e.data,
  };
}
