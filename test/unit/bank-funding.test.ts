/**
 * A payment funded by bank transfer taking the bank's credits (docs/bank.md, "Funding by bank
 * transfer"): exact → deposited; short → still pending_deposit, amount_received raised,
 * payment.partially_funded; later credits add up; over → deposited with its amount, the rest left
 * over (an unapplied credit). Refused: an api payment, one not pending_deposit, one past its deadline.
 */
import { describe, expect, it } from 'vitest';
import { planFunds } from '../../src/payments/bankFunding.rules';
import { applyTransition } from '../../src/payments/paymentPlan.rules';
import type { PaymentState } from '../../src/payments/paymentTypes.rules';
import { paymentState } from './fixtures';

const now = Date.parse('2026-11-24T12:00:00.000Z');
const bankPayment = (over: Partial<PaymentState> = {}) => paymentState({ funding: 'bank_transfer', amountMinor: 12550n, ...over });
const credit = (id: string, amountMinor: bigint) => ({ creditId: id, amountMinor, bookedOn: '2026-11-24', bankEntryRef: `REF-${id}` });

describe('planFunds', () => {
  it('deposits a payment whose credit is exactly its amount', () => {
    const plan = planFunds(bankPayment(), credit('bc_1', 12550n), now);
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.step.to).toBe('in_custody');
    expect(plan.step.events.map((e) => e.event)).toEqual(['payment.deposited']);
    expect(plan.step.movement.deposited).toBe(12550n);
    expect(plan.credit).toEqual({
      id: 'bc_1',
      amountMinor: 12550n,
      appliedMinor: 12550n,
      bookedOn: '2026-11-24',
      bankEntryRef: 'REF-bc_1',
    });
    expect(plan.excessMinor).toBe(0n);
    expect(plan.received).toBe(12550n);
  });

  it('keeps a short payment pending with what it received, then deposits it when later credits reach the amount', () => {
    const first = planFunds(bankPayment(), credit('bc_1', 5000n), now);
    if (!first.ok) throw new Error(first.message);
    expect(first.step.to).toBe('pending_deposit');
    expect(first.step.events.map((e) => e.event)).toEqual(['payment.partially_funded']);
    expect(first.step.movement).toEqual({ deposited: 0n, refunded: 0n, released: 0n, fee: 0n });
    expect(first.received).toBe(5000n);
    const after = {
      ...applyTransition(bankPayment(), first.step, { actor: 'bank', reason: null, at: '' }).state,
      amountReceivedMinor: 5000n,
    };
    expect(after.heldMinor).toBe(0n);
    const second = planFunds(after, credit('bc_2', 7550n), now);
    if (!second.ok) throw new Error(second.message);
    expect(second.step.to).toBe('in_custody');
    expect(second.credit.appliedMinor).toBe(7550n);
    expect(second.received).toBe(12550n);
  });

  it('deposits an overpaid payment with its amount, the excess left over', () => {
    const plan = planFunds(bankPayment({ amountReceivedMinor: 2550n }), credit('bc_3', 20000n), now);
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.step.to).toBe('in_custody');
    expect(plan.credit.appliedMinor).toBe(10000n);
    expect(plan.excessMinor).toBe(10000n);
  });

  it('refuses an api payment, a payment not pending_deposit, one whose deadline has passed, and a credit of nothing', () => {
    expect(planFunds(paymentState(), credit('bc_1', 100n), now)).toMatchObject({ ok: false, reason: 'not_bank_transfer' });
    expect(planFunds(bankPayment({ status: 'cancelled' }), credit('bc_1', 100n), now)).toMatchObject({
      ok: false,
      reason: 'not_pending_deposit',
    });
    const late = Date.parse('2026-12-01T00:00:00.000Z');
    expect(planFunds(bankPayment(), credit('bc_1', 100n), late)).toMatchObject({ ok: false, reason: 'deadline_passed' });
    expect(planFunds(bankPayment(), credit('bc_1', 0n), now)).toMatchObject({ ok: false, reason: 'invalid_amount' });
  });
});
