/**
 * The events one history entry emits, in the order receivers get them (docs/webhooks.md): one, the
 * transition's own, except for a split, which first emits `payment.partially_refunded` for its
 * refunded part, so that a receiver subscribed to refunds sees it, then its `payment.released`.
 * Pure: the projection, the publication and `npm run repair` all read it.
 */
import { type HistoryEntry, type PaymentEvent, type PaymentState, amountsOf, movementOf, withAmounts } from './payment';

/** The transition's own event; an event that precedes it within the same version has a lower ordinal. */
export const OWN_EVENT_ORDINAL = 0;
const SPLIT_REFUND_ORDINAL = -1;

interface EmittedEvent {
  event: PaymentEvent;
  /** The payment as the event shows it. */
  state: PaymentState;
  /** Its place among its version's events (OWN_EVENT_ORDINAL for the transition's own). */
  ordinal: number;
}

export function emittedEvents(state: PaymentState, entry: HistoryEntry): EmittedEvent[] {
  const own: EmittedEvent = { event: entry.event, state, ordinal: OWN_EVENT_ORDINAL };
  const movement = entry.movement && movementOf(entry.movement);
  if (!movement || movement.refunded === 0n || movement.released === 0n || !entry.from) return [own];
  // The split's refunded part as a partial refund shows it: refunded, the rest still held, the status unchanged.
  const after = amountsOf(state);
  const refundedPart = withAmounts(
    { ...state, status: entry.from },
    {
      ...after,
      held: after.held + movement.released,
      released: after.released - movement.released,
      feeCollected: after.feeCollected - movement.fee,
    },
  );
  return [{ event: 'payment.partially_refunded', state: refundedPart, ordinal: SPLIT_REFUND_ORDINAL }, own];
}
