/**
 * The events a history entry emits (docs/webhooks.md, "A split's two events"): one per transition,
 * and for a split its refunded part as a partial refund first.
 */
import { describe, expect, it } from 'vitest';
import { type PaymentState } from '../../src/payments/paymentTypes.rules';
import { applyTransition } from '../../src/payments/paymentPlan.rules';
import { planTransition } from '../../src/payments/paymentPlan.rules';
import { emittedEvents } from '../../src/payments/transitionEvents.rules';
import { paymentState } from './fixtures';

const AT = '2026-11-24T00:00:00.000Z';
/** 125.50 USD with a 3.00 fee, 5.50 already refunded, the rest held. */
const held = (status: PaymentState['status']) =>
  paymentState({ status, platformFeeMinor: 300n, heldMinor: 12000n, releasedMinor: 0n, refundedMinor: 550n, feeCollectedMinor: 0n });

function step(state: PaymentState, req: Parameters<typeof planTransition>[1]) {
  const plan = planTransition(state, req, Date.parse(AT));
  if (!plan.ok) throw new Error(plan.message);
  return applyTransition(state, plan, { actor: 'test', reason: null, at: AT });
}

describe('emittedEvents', () => {
  it('a split: payment.partially_refunded as that partial refund leaves the payment, then payment.released', () => {
    const { state, entry } = step(held('disputed'), { action: 'resolve', resolution: 'split', amountMinor: 2000n });
    const events = emittedEvents(state, entry);
    expect(events.map((e) => [e.event, e.ordinal])).toEqual([
      ['payment.partially_refunded', -1],
      ['payment.released', 0],
    ]);
    const [part, own] = events;
    expect(own.state).toBe(state);
    expect(part.state).toMatchObject({
      status: 'disputed',
      version: state.version,
      updatedAt: AT,
      heldMinor: 10000n,
      releasedMinor: 0n,
      refundedMinor: 2550n,
      feeCollectedMinor: 0n,
    });
    expect(state).toMatchObject({ status: 'released', heldMinor: 0n, releasedMinor: 10000n, refundedMinor: 2550n });
    // The same as a partial refund of 20.00 from the same state would show.
    const partial = step(held('disputed'), { action: 'refund', amountMinor: 2000n });
    expect(part.state).toEqual(partial.state);
  });

  it('every other transition: its own event only', () => {
    for (const [status, req] of [
      ['disputed', { action: 'resolve', resolution: 'release' }],
      ['disputed', { action: 'resolve', resolution: 'refund' }],
      ['in_custody', { action: 'refund', amountMinor: 100n }],
      ['in_custody', { action: 'approve' }],
    ] as const) {
      const { state, entry } = step(held(status), req);
      expect(emittedEvents(state, entry)).toEqual([{ event: entry.event, state, ordinal: 0 }]);
    }
  });
});
