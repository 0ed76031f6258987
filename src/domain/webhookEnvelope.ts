/**
 * The body of every webhook delivery (docs/webhooks.md): the event, the payment as the API shows
 * it, and the payment's version. Built here only, for payments' events and for `payment.test`.
 */
import type { PaymentEvent } from './payment';
import type { PaymentView, SamplePaymentView } from './paymentView';

export interface Envelope {
  event: PaymentEvent;
  payment_id: string;
  timestamp: string;
  /** The payment's version (1 for payment.created); 0 for payment.test, which belongs to no payment. */
  sequence: number;
  data: PaymentView | SamplePaymentView;
}

/**
 * A webhook's body. `sequence` is the payment's version, so that a receiver can ignore an event
 * older than one it has applied. The key order is the body's: receivers verify its exact bytes.
 */
export function envelope(event: PaymentEvent, timestamp: string, data: PaymentView | SamplePaymentView, sequence: number): Envelope {
  return { event, payment_id: data.id, timestamp, sequence, data };
}
