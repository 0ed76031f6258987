/**
 * A transition's money (docs/money.md): partial refunds keep the status, a split releases the rest,
 * every refusal names its field with its exact message, and the state and history carry the amounts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PaymentState } from '../../src/payments/paymentTypes.rules';
import { TRANSITIONS, checkTransition } from '../../src/payments/payment.rules';
import { applyTransition } from '../../src/payments/paymentPlan.rules';
import { amountsOf, moneyOf, withAmounts } from '../../src/payments/paymentMoney.rules';
import { planTransition } from '../../src/payments/paymentPlan.rules';
import { paymentState, refusedStep } from './fixtures';

const NOW = Date.parse('2026-11-24T00:00:00.000Z');
/** 125.50 USD with a 3.00 fee, deposited: all of it held. */
const held = (status: PaymentState['status'], overrides: Partial<PaymentState> = {}) =>
  paymentState({
    status,
    platformFeeMinor: 300n,
    heldMinor: 12550n,
    releasedMinor: 0n,
    refundedMinor: 0n,
    feeCollectedMinor: 0n,
    ...overrides,
  });

describe('amountsOf and moneyOf', () => {
  it('read the amounts the workflow keeps', () => {
    const s = held('in_custody', { heldMinor: 10000n, refundedMinor: 2550n });
    expect(amountsOf(s)).toEqual({ held: 10_000n, released: 0n, refunded: 2_550n, feeCollected: 0n });
    expect(moneyOf(s)).toEqual({ amount: 12_550n, platformFee: 300n });
  });

  it('withAmounts writes them out', () => {
    expect(withAmounts(held('in_custody'), { held: 1n, released: 2n, refunded: 3n, feeCollected: 4n })).toMatchObject({
      platformFeeMinor: 300n,
      heldMinor: 1n,
      releasedMinor: 2n,
      refundedMinor: 3n,
      feeCollectedMinor: 4n,
    });
  });
});

describe('the partial-refund and split rows', () => {
  it('a partial refund keeps the status, from each status a refund is allowed from', () => {
    for (const status of ['in_custody', 'pending_release', 'disputed'] as const) {
      expect(checkTransition(status, 'refund', undefined, true)).toMatchObject({
        ok: true,
        transition: {
          action: 'refund',
          partial: true,
          from: [status],
          to: status,
          event: 'payment.partially_refunded',
          money: 'refund_part',
        },
      });
    }
    for (const status of ['pending_deposit', 'released', 'cancelled', 'refunded'] as const) {
      expect(checkTransition(status, 'refund', undefined, true)).toEqual({
        ok: false,
        reason: 'invalid_transition',
        message: `cannot refund a payment whose status is ${status}`,
      });
    }
  });

  it('split resolves a dispute into released', () => {
    expect(checkTransition('disputed', 'resolve', 'split')).toMatchObject({
      ok: true,
      transition: { resolution: 'split', to: 'released', event: 'payment.released', money: 'split' },
    });
  });

  it('each row names what it does to the money', () => {
    expect(TRANSITIONS.map((t) => `${t.action}${t.resolution ? `:${t.resolution}` : ''}${t.partial ? ':partial' : ''}=${t.money}`)).toEqual(
      [
        'deposit=deposit',
        'approve=none',
        'release=release_rest',
        'cancel=none',
        'refund=refund_rest',
        'refund:partial=refund_part',
        'refund:partial=refund_part',
        'refund:partial=refund_part',
        'dispute=none',
        'resolve:release=release_rest',
        'resolve:refund=refund_rest',
        'resolve:split=split',
        'deadline=none',
        'auto_release=release_rest',
        'dispute_accept:release=release_rest',
        'dispute_accept:refund=refund_rest',
        'dispute_accept:split=split',
        'dispute_default:release=release_rest',
        'dispute_default:refund=refund_rest',
        'dispute_withdraw=none',
        'dispute_withdraw=none',
      ],
    );
  });
});

describe('planTransition', () => {
  const plan = (
    s: PaymentState,
    action: 'refund' | 'resolve' | 'release' | 'deposit',
    amountMinor?: bigint,
    resolution?: 'split' | 'refund' | 'release',
  ) => planTransition(s, { action, resolution, amountMinor }, NOW);

  it('a refund of less than is held is partial: the status stays', () => {
    expect(plan(held('in_custody'), 'refund', 2_550n)).toMatchObject({
      ok: true,
      to: 'in_custody',
      events: [{ event: 'payment.partially_refunded' }],
      movement: { deposited: 0n, refunded: 2_550n, released: 0n, fee: 0n },
      after: { held: 10_000n, released: 0n, refunded: 2_550n, feeCollected: 0n },
    });
  });

  it('a refund of all that is held, or of no amount, empties custody: refunded', () => {
    for (const amount of [12_550n, undefined]) {
      expect(plan(held('pending_release'), 'refund', amount)).toMatchObject({
        ok: true,
        to: 'refunded',
        events: [{ event: 'payment.refunded' }],
        movement: { refunded: 12_550n },
        after: { held: 0n, refunded: 12_550n },
      });
    }
  });

  it('refuses a refund of more than is held, naming the amount held', () => {
    expect(plan(held('in_custody', { heldMinor: 10000n, refundedMinor: 2550n }), 'refund', 10_001n)).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'amount',
      message: 'amount must be at most the amount held, 100.00 USD',
    });
  });

  it('refuses a refund amount of 0 or less', () => {
    for (const amount of [0n, -1n]) {
      expect(plan(held('in_custody'), 'refund', amount)).toEqual({
        ok: false,
        reason: 'invalid_amount',
        field: 'amount',
        message: 'amount must be greater than 0',
      });
    }
  });

  it('a split refunds refund_amount and releases the rest with its pro-rata fee', () => {
    expect(plan(held('disputed'), 'resolve', 2_550n, 'split')).toMatchObject({
      ok: true,
      to: 'released',
      events: [{ event: 'payment.partially_refunded' }, { event: 'payment.released' }],
      movement: { deposited: 0n, refunded: 2_550n, released: 10_000n, fee: 239n }, // floor(300 × 10000 / 12550)
      after: { held: 0n, released: 10_000n, refunded: 2_550n, feeCollected: 239n },
    });
  });

  it('refuses a split without refund_amount, of 0, of all held or more', () => {
    expect(plan(held('disputed'), 'resolve', undefined, 'split')).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'refund_amount is required for the split resolution',
    });
    expect(plan(held('disputed'), 'resolve', 0n, 'split')).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'refund_amount must be greater than 0',
    });
    for (const amount of [12_550n, 12_551n]) {
      expect(plan(held('disputed'), 'resolve', amount, 'split')).toEqual({
        ok: false,
        reason: 'invalid_amount',
        field: 'refund_amount',
        message: 'refund_amount must be less than the amount held, 125.50 USD',
      });
    }
    expect(plan(held('disputed'), 'resolve', 12_549n, 'split').ok).toBe(true);
  });

  it('a resolution sent with a refund changes nothing: the field is still amount', () => {
    expect(plan(held('in_custody'), 'refund', 0n, 'split')).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'amount',
      message: 'amount must be greater than 0',
    });
    expect(plan(held('in_custody'), 'refund', 12_551n, 'split')).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'amount',
      message: 'amount must be at most the amount held, 125.50 USD',
    });
  });

  it('refuses an amount on any other action', () => {
    expect(plan(held('pending_release'), 'release', 100n)).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'refund_amount is only for the split resolution',
    });
    expect(plan(held('disputed'), 'resolve', 100n, 'release')).toMatchObject({ ok: false, field: 'refund_amount' });
  });

  it('checks the status first, and a due timer', () => {
    expect(plan(held('released'), 'refund', 100n)).toEqual(refusedStep('released', [], 'cannot refund a payment whose status is released'));
    expect(planTransition(paymentState(), { action: 'deposit' }, Date.parse('2026-12-01T00:00:00.000Z'))).toMatchObject({
      ok: false,
      reason: 'invalid_transition',
    });
  });

  it('a release after partial refunds collects the fee on what is released', () => {
    const s = held('pending_release', { heldMinor: 10000n, refundedMinor: 2550n });
    expect(plan(s, 'release')).toMatchObject({
      ok: true,
      movement: { released: 10_000n, fee: 239n },
      after: { held: 0n, released: 10_000n, refunded: 2_550n, feeCollected: 239n },
    });
  });
});

describe('planTransition and applyTransition', () => {
  it('deposit moves the whole amount into custody and the entry records it', () => {
    const s = paymentState({ platformFeeMinor: 300n });
    const planned = planTransition(s, { action: 'deposit' }, NOW);
    expect(planned).toMatchObject({ ok: true, movement: { deposited: 12_550n }, after: { held: 12_550n } });
    if (!planned.ok) throw new Error('planned');
    const { state, entry } = applyTransition(s, planned, { actor: 'key_1', reason: null, at: '2026-11-24T00:00:00.000Z' });
    expect(state).toMatchObject({ status: 'in_custody', version: 2, heldMinor: 12550n, releasedMinor: 0n, platformFeeMinor: 300n });
    expect(entry.movement).toEqual({ deposited: 12550n, refunded: 0n, released: 0n, fee: 0n });
  });

  it('a step that moves no money writes no movement', () => {
    const s = held('in_custody');
    const planned = planTransition(s, { action: 'approve' }, NOW);
    if (!planned.ok) throw new Error('planned');
    expect(applyTransition(s, planned, { actor: 'a', reason: null, at: 'x' }).entry).not.toHaveProperty('movement');
  });

  it('held + released + refunded = amount through any run of partial refunds and a release; the fee never exceeds platform_fee (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 1n, max: 5_000n }), { maxLength: 5 }), fc.boolean(), (parts, dispute) => {
        let s: PaymentState = held(dispute ? 'disputed' : 'in_custody');
        for (const part of parts) {
          const p = planTransition(s, { action: 'refund', amountMinor: part }, NOW);
          if (!p.ok) {
            expect(part).toBeGreaterThan(amountsOf(s).held);
            continue;
          }
          s = applyTransition(s, p, { actor: 'a', reason: null, at: 'x' }).state;
          const a = amountsOf(s);
          expect(a.held + a.released + a.refunded).toBe(12_550n);
        }
        if (s.status === 'refunded') return;
        const step = (req: Parameters<typeof planTransition>[1]) => {
          const p = planTransition(s, req, NOW);
          if (!p.ok) throw new Error(p.message);
          s = applyTransition(s, p, { actor: 'a', reason: null, at: 'x' }).state;
        };
        if (dispute) step({ action: 'resolve', resolution: 'release' });
        else {
          step({ action: 'approve' });
          step({ action: 'release' });
        }
        expect(s.status).toBe('released');
        const a = amountsOf(s);
        expect(a.held).toBe(0n);
        expect(a.held + a.released + a.refunded).toBe(12_550n);
        expect(a.feeCollected).toBe((300n * a.released) / 12_550n);
        expect(a.feeCollected).toBeLessThanOrEqual(300n);
      }),
    );
  });
});
