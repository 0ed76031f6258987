/**
 * An event as the Events API shows it (docs/webhooks.md): the payment as it was right after the
 * event and, for a milestone event, that milestone. Its schema is src/webhooks/events.schemas.ts's.
 */
import type { PaymentEvent } from '../payments/paymentTypes.rules';
import type { PaymentView } from '../payments/payment.view';

/** What the view reads of one stored event (the repository's row, src/webhooks/events.repository.ts, holds these columns). */
export interface StoredEvent {
  id: string;
  payment_id: string;
  type: PaymentEvent;
  sequence: number;
  data: PaymentView;
  created_at: Date;
  milestone_id: string | null;
}

export function eventView(e: StoredEvent) {
  return {
    id: e.id,
    object: 'event' as const,
    type: e.type,
    payment_id: e.payment_id,
    sequence: e.sequence,
    created_at: e.created_at.toISOString(),
    // A milestone event's milestone, as its webhook envelope shows it.
    ...(e.milestone_id ? { milestone: e.data.milestones.find((m) => m.id === e.milestone_id) } : {}),
    data: e.data,
  };
}
