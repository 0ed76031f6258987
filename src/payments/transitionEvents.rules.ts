/**
 * The events one history entry emits, in the order receivers get them (docs/webhooks.md):
 * `payment.partially_refunded` when money went back to the payer without the payment becoming
 * refunded (a split's refunded part, say), then on a payment with milestones each milestone event,
 * then the spec's event for the status the payment took (`stepEvents`, src/payments/milestones.rules.ts).
 * Pure: the projection, the publication and `npm run repair` all read it.
 */
import { stepEvents } from './milestones.rules';
import { amountsOf, withAmounts } from './paymentMoney.rules';
import type { HistoryEntry, PaymentEvent, PaymentState } from './paymentTypes.rules';

/** The transition's own event (the last); an event that precedes it within the same version has a lower ordinal. */
export const OWN_EVENT_ORDINAL = 0;

interface EmittedEvent<S extends PaymentState> {
  event: PaymentEvent;
  /** The payment as the event shows it. */
  state: S;
  /** Its place among its version's events (OWN_EVENT_ORDINAL for the last). */
  ordinal: number;
  /** The milestone a milestone event is about. */
  milestoneId?: string;
}

/** The step's events; a creation's is its own, and a step recorded before milestones moved its payment's one milestone. */
function eventsOf(state: PaymentState, entry: HistoryEntry) {
  if (!entry.from) return [{ event: entry.event }];
  const refunded = entry.movement?.refunded ?? 0n;
  const events = stepEvents(
    { from: entry.from, to: entry.to, refunded, changes: entry.changes ?? [], action: entry.action, disputeId: entry.disputeId },
    state.staged,
  );
  return events.length > 0 ? events : [{ event: entry.event }];
}

export function emittedEvents<S extends PaymentState>(state: S, entry: HistoryEntry): EmittedEvent<S>[] {
  const events = eventsOf(state, entry);
  return events.map((e, i) => ({
    ...e,
    ordinal: i - (events.length - 1),
    // A refunded part, announced before the release that came with it, shows the payment between the two.
    state: e.event === 'payment.partially_refunded' && i < events.length - 1 ? refundedPart(state, entry) : state,
  }));
}

/** The payment as a partial refund shows it: refunded, the part released with it still held, the status unchanged. */
function refundedPart<S extends PaymentState>(state: S, entry: HistoryEntry): S {
  const movement = entry.movement;
  if (!movement || movement.released === 0n || !entry.from) return state;
  const after = amountsOf(state);
  const changed = new Map(entry.changes?.map((c) => [c.id, c]));
  const milestones = state.milestones.map((m) => {
    const c = changed.get(m.id);
    if (!c?.movement) return m;
    const mv = c.movement;
    if (mv.released === 0n) return m;
    const a = amountsOf(m);
    return withAmounts(
      { ...m, status: c.from },
      { ...a, held: a.held + mv.released, released: a.released - mv.released, feeCollected: a.feeCollected - mv.fee },
    );
  });
  return withAmounts(
    { ...state, status: entry.from, milestones },
    {
      ...after,
      held: after.held + movement.released,
      released: after.released - movement.released,
      feeCollected: after.feeCollected - movement.fee,
    },
  );
}
