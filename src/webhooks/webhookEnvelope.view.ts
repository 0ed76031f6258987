/**
 * The body of every webhook delivery (docs/webhooks.md): the event, the payment as the API shows
 * it, and the payment's version. Built here only, for payments' events and for `payment.test`.
 */
import type { HistoryEntry, PaymentEvent } from '../payments/paymentTypes.rules';
import type { PaymentDetails } from '../payments/paymentRecord.rules';
import { type MilestoneView, type PaymentView, type SamplePaymentView, milestoneView, paymentView } from '../payments/payment.view';
import { emittedEvents } from '../payments/transitionEvents.rules';

export interface Envelope {
  event: PaymentEvent;
  payment_id: string;
  timestamp: string;
  /** The payment's version (1 for payment.created); 0 for payment.test, which belongs to no payment. */
  sequence: number;
  /** A milestone event's milestone, as `data.milestones` shows it. */
  milestone?: MilestoneView;
  data: PaymentView | SamplePaymentView;
}

/**
 * A webhook's body. `sequence` is the payment's version, so that a receiver can ignore an event
 * older than one it has applied. The key order is the body's: receivers verify its exact bytes.
 */
export function envelope(
  event: PaymentEvent,
  timestamp: string,
  data: PaymentView | SamplePaymentView,
  sequence: number,
  milestone?: MilestoneView,
): Envelope {
  return { event, payment_id: data.id, timestamp, sequence, ...(milestone ? { milestone } : {}), data };
}

/** An envelope a transition owes, with its event's ordinal within the version (src/payments/transitionEvents.rules.ts). */
export interface TransitionEnvelope {
  envelope: Envelope;
  ordinal: number;
}

/** The envelopes of a history entry's events, in the order they are delivered: a split's refunded part first. */
export function transitionEnvelopes(state: PaymentDetails, entry: HistoryEntry): TransitionEnvelope[] {
  return emittedEvents(state, entry).map((e) => {
    const milestone = e.milestoneId === undefined ? undefined : e.state.milestones.find((m) => m.id === e.milestoneId);
    return {
      envelope: envelope(e.event, entry.at, paymentView(e.state), entry.seq, milestone && milestoneView(e.state, milestone)),
      ordinal: e.ordinal,
    };
  });
}
