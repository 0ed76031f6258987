/**
 * The dispute rules without a stack (src/payments/disputes.rules.ts, disputeRules.ts): the record an
 * opening writes, the respondent's timer, each party's turn, the money of an agreement, a
 * withdrawal and a default, and a payment never disputed planned exactly as before.
 */
import { describe, expect, it } from 'vitest';
import { type PlannedStep, applyTransition, planTransition } from '../../src/payments/paymentPlan.rules';
import { openDispute, planDispute, planDisputeDefault } from '../../src/payments/disputes.rules';
import { closeDisputes } from '../../src/payments/disputeTable.rules';
import { pendingTimers } from '../../src/payments/paymentTimers.rules';
import type { DisputeParty, PaymentState } from '../../src/payments/paymentTypes.rules';
import { paymentState } from './fixtures';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');
const DAY_MS = 24 * 3600 * 1000;
const meta = { actor: 'key_1', reason: null, at: new Date(NOW).toISOString() };

/** A payment of 125.50 USD (fee 6.27) in `status`, holding everything. */
function holding(status: 'in_custody' | 'pending_release' = 'in_custody'): PaymentState {
  const p = paymentState({ status, heldMinor: 12550n, platformFeeMinor: 627n });
  return { ...p, milestones: p.milestones.map((m) => ({ ...m, status, heldMinor: 12550n })) };
}

function step(state: PaymentState, plan: PlannedStep | ({ ok: boolean } & Partial<PlannedStep>)): PaymentState {
  expect('ok' in plan ? plan.ok : true, (plan as { message?: string }).message).toBe(true);
  return applyTransition(state, plan as PlannedStep, meta).state;
}

function disputed(openedBy: DisputeParty, from: 'in_custody' | 'pending_release' = 'in_custody'): PaymentState {
  const state = holding(from);
  const plan = planTransition(state, { action: 'dispute' }, NOW);
  if (!plan.ok) throw new Error(plan.message);
  return step(state, openDispute(state, plan, { id: 'dp_1', openedBy, respondWithinSeconds: 2 * 24 * 3600, reason: null }, NOW));
}

describe('opening', () => {
  it('records who opened it, the respondent, everything held and respond_by; its events end with payment.dispute_updated', () => {
    const state = holding();
    const plan = planTransition(state, { action: 'dispute' }, NOW);
    if (!plan.ok) throw new Error(plan.message);
    const opened = openDispute(state, plan, { id: 'dp_1', openedBy: 'payer', respondWithinSeconds: 3600, reason: 'hmac:ab' }, NOW);
    expect(opened.events.map((e) => e.event)).toEqual(['payment.disputed', 'payment.dispute_updated']);
    expect(opened.disputes).toEqual([
      expect.objectContaining({
        id: 'dp_1',
        status: 'awaiting_response',
        respondent: 'recipient',
        amountMinor: 12550n,
        covers: [{ id: state.milestones[0].id, from: 'in_custody' }],
        respondBy: new Date(NOW + 3600_000).toISOString(),
      }),
    ]);
    const after = applyTransition(state, opened, meta);
    expect(after.entry.disputeId).toBe('dp_1');
    expect(pendingTimers(after.state)).toEqual([{ action: 'dispute_default', dueAt: NOW + 3600_000, disputeId: 'dp_1' }]);
  });

  it('by the platform: no respondent, no respond_by, no timer, no default', () => {
    const state = disputed('platform');
    expect(state.disputes![0]).toMatchObject({ respondent: null, respondBy: null });
    expect(pendingTimers(state)).toEqual([]);
    expect(planDisputeDefault(state, 'dp_1', NOW + 100 * DAY_MS)).toBeUndefined();
  });
});

describe('a payment never disputed', () => {
  it('is planned as before: no disputes, no dispute event, the step itself returned by closeDisputes', () => {
    const state = holding();
    const plan = planTransition(state, { action: 'refund' }, NOW);
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.disputes).toBeUndefined();
    expect(plan.events.map((e) => e.event)).toEqual(['payment.refunded']);
    expect(closeDisputes(state, plan, 'platform', NOW)).toBe(plan);
    expect(applyTransition(state, plan, meta).state).not.toHaveProperty('disputes');
  });
});

describe('turns', () => {
  it('refuses each action out of turn, naming the dispute’s status', () => {
    let state = disputed('payer');
    state = step(state, planDispute(state, { action: 'dispute_offer', party: 'recipient', itemId: 'of_1', refundMinor: 2000n }, NOW));
    const refusals = [
      planDispute(state, { action: 'dispute_accept', party: 'recipient', itemId: 'of_1' }, NOW),
      planDispute(state, { action: 'dispute_withdraw', party: 'recipient' }, NOW),
      planDispute(state, { action: 'dispute_evidence', party: 'platform', itemId: 'ev_1', hash: 'hmac:1' }, NOW),
      planDispute(state, { action: 'dispute_evidence', party: 'payer', itemId: 'ev_1', hash: 'hmac:1' }, NOW + 2 * DAY_MS),
    ];
    for (const r of refusals) expect(r).toMatchObject({ ok: false, reason: 'dispute_out_of_turn', disputeStatus: 'awaiting_response' });
    expect(planDispute(holding(), { action: 'dispute_withdraw', party: 'payer' }, NOW)).toMatchObject({
      ok: false,
      reason: 'invalid_transition',
      status: 'in_custody',
    });
  });

  it('an agreement settles as a split (fee pro rata); the offer accepted, the dispute resolved by agreement', () => {
    let state = disputed('payer');
    state = step(state, planDispute(state, { action: 'dispute_offer', party: 'recipient', itemId: 'of_1', refundMinor: 2000n }, NOW));
    const plan = planDispute(state, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' }, NOW);
    const after = step(state, plan);
    expect([after.status, after.refundedMinor, after.releasedMinor, after.feeCollectedMinor]).toEqual(['released', 2000n, 10550n, 527n]);
    expect(after.disputes![0]).toMatchObject({
      status: 'resolved',
      offers: [{ id: 'of_1', status: 'accepted' }],
      resolution: { refundMinor: 2000n, releaseMinor: 10550n, decidedBy: 'agreement' },
    });
  });

  it('a withdrawal returns each milestone to its status before; a default decides for the opener', () => {
    const back = disputed('recipient', 'pending_release');
    const withdrawn = step(back, planDispute(back, { action: 'dispute_withdraw', party: 'recipient' }, NOW));
    expect([withdrawn.status, withdrawn.heldMinor, withdrawn.disputes![0].status]).toEqual(['pending_release', 12550n, 'withdrawn']);

    const silent = disputed('recipient');
    const decided = step(silent, planDisputeDefault(silent, 'dp_1', NOW + 2 * DAY_MS)!);
    expect([decided.status, decided.releasedMinor, decided.disputes![0].resolution?.decidedBy]).toEqual(['released', 12550n, 'default']);
  });
});
