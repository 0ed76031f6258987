/**
 * The dispute rules, line by line (src/payments/disputeTable.rules.ts, disputes.ts, and what they add to
 * the timers, the plan, the events, the personal data and the view): every refusal's words, every
 * boundary, every table.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OUTCOME,
  DISPUTE_RULES,
  MAX_EVIDENCE_CHARS,
  MAX_EVIDENCE_ITEMS,
  MAX_OFFER_NOTE_CHARS,
  OPEN_DISPUTE_STATUSES,
  RESPONDENT,
  closeDisputes,
  decidedByOf,
  disputeRefusal,
  isOpen,
  latestDispute,
} from '../../src/payments/disputeTable.rules';
import { type DisputeRequest, openDispute, planDispute, planDisputeDefault } from '../../src/payments/disputes.rules';
import { stepEvents } from '../../src/payments/milestones.rules';
import { type PlannedStep, applyTransition, planTransition } from '../../src/payments/paymentPlan.rules';
import { pendingTimers } from '../../src/payments/paymentTimers.rules';
import type { DisputeParty, DisputeState, PaymentState } from '../../src/payments/paymentTypes.rules';
import { REDACTED, disputeHashes, redactMilestoneView, redactView, withTexts, withoutTexts } from '../../src/payments/personalData.rules';
import { emittedEvents } from '../../src/payments/transitionEvents.rules';
import { disputeView, paymentView } from '../../src/payments/payment.view';
import { paymentDetails, paymentState, refusedStep, stagedPayment } from './fixtures';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');
const HOUR_MS = 3600_000;
const at = (ms: number) => new Date(ms).toISOString();
const meta = { actor: 'key_1', reason: null, at: at(NOW) };

type Plan = PlannedStep | { ok: false; message: string };
function step(state: PaymentState, plan: Plan | undefined): PaymentState {
  if (!plan || ('ok' in plan && !plan.ok)) throw new Error(plan ? (plan as { message: string }).message : 'no plan');
  return applyTransition(state, plan as PlannedStep, meta).state;
}

/** Everything held in `status`, every milestone holding its amount. */
function holding(state: PaymentState, status: 'in_custody' | 'pending_release' = 'in_custody'): PaymentState {
  return {
    ...state,
    status,
    heldMinor: state.amountMinor,
    milestones: state.milestones.map((m) => ({ ...m, status, heldMinor: m.amountMinor })),
  };
}

/** `state` disputed by its payment's (or a milestone's) `dispute`, opened by `openedBy`, respond_by an hour on. */
function disputed(state: PaymentState, openedBy: DisputeParty = 'payer', milestoneId?: string, id = 'dp_1'): PaymentState {
  const plan = planTransition(state, { action: 'dispute', milestoneId }, NOW);
  if (!plan.ok) throw new Error(plan.message);
  return step(state, openDispute(state, plan, { id, openedBy, respondWithinSeconds: 3600, reason: 'hmac:r' }, NOW));
}

const single = () => holding(paymentState({ amountMinor: 10000n, platformFeeMinor: 1000n }));
const staged = () => holding(stagedPayment([6000n, 4000n], { platformFeeMinor: 1000n }));
const plan = (state: PaymentState, req: DisputeRequest, now = NOW) => planDispute(state, req, now);
const offer = (state: PaymentState, party: 'payer' | 'recipient', refund: bigint, itemId: string, hash: string | null = null) =>
  step(state, plan(state, { action: 'dispute_offer', party, itemId, refundMinor: refund, hash }));

describe('the tables', () => {
  it('names the limits, the open statuses, the respondent and the default outcome of each opener', () => {
    expect([MAX_EVIDENCE_ITEMS, MAX_EVIDENCE_CHARS, MAX_OFFER_NOTE_CHARS]).toEqual([20, 20_000, 20_000]);
    expect(OPEN_DISPUTE_STATUSES).toEqual(['awaiting_response', 'under_review']);
    expect(['awaiting_response', 'under_review', 'resolved', 'withdrawn'].map((status) => isOpen({ status } as DisputeState))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(RESPONDENT).toEqual({ payer: 'recipient', recipient: 'payer', platform: null });
    expect(DEFAULT_OUTCOME).toEqual({ payer: 'refund', recipient: 'release', platform: null });
  });

  it('words each action and names who may take it', () => {
    const open = ['awaiting_response', 'under_review'];
    expect(DISPUTE_RULES).toEqual({
      dispute_evidence: { statuses: open, verb: 'add evidence to', who: 'payer or recipient' },
      dispute_offer: { statuses: open, verb: 'make an offer in', who: 'payer or recipient' },
      dispute_accept: { statuses: open, verb: 'accept an offer in', who: 'the party the offer was made to' },
      dispute_decline: { statuses: open, verb: 'decline an offer in', who: 'the party the offer was made to' },
      dispute_withdraw: { statuses: open, verb: 'withdraw', who: 'the party that opened it' },
    });
    expect(['dispute_accept', 'dispute_default', 'dispute_withdraw', 'resolve', 'refund'].map(decidedByOf)).toEqual([
      'agreement',
      'default',
      'withdrawal',
      'platform',
      'platform',
    ]);
    expect(disputeRefusal('dispute_withdraw', 'resolved')).toBe('cannot withdraw a dispute whose status is resolved');
    expect(disputeRefusal('dispute_offer', 'withdrawn', 'why not')).toBe(
      'cannot make an offer in a dispute whose status is withdrawn: why not',
    );
  });
});

describe('latestDispute', () => {
  it("the payment's latest, or the latest covering a milestone; none before the first", () => {
    expect(latestDispute(single())).toBeUndefined();
    expect(latestDispute(single(), 'ms_1')).toBeUndefined();
    let s = disputed(staged(), 'payer', 'ms_1', 'dp_a');
    s = disputed(s, 'recipient', 'ms_2', 'dp_b');
    expect(latestDispute(s)?.id).toBe('dp_b');
    expect(latestDispute(s, 'ms_1')?.id).toBe('dp_a');
    expect(latestDispute(s, 'ms_2')?.id).toBe('dp_b');
    expect(latestDispute(s, 'ms_9')).toBeUndefined();
  });
});

describe('opening', () => {
  it("a milestone's: covers that milestone alone, its amount, the milestone named; the others' untouched", () => {
    const s = disputed(staged(), 'recipient', 'ms_2');
    expect(s.disputes).toEqual([
      {
        id: 'dp_1',
        milestoneId: 'ms_2',
        covers: [{ id: 'ms_2', from: 'in_custody' }],
        status: 'awaiting_response',
        openedBy: 'recipient',
        respondent: 'payer',
        reason: 'hmac:r',
        amountMinor: 4000n,
        respondBy: at(NOW + HOUR_MS),
        evidence: [],
        offers: [],
        resolution: null,
        openedAt: at(NOW),
      },
    ]);
    expect(pendingTimers(s)).toEqual([{ action: 'dispute_default', dueAt: NOW + HOUR_MS, disputeId: 'dp_1', milestoneId: 'ms_2' }]);
  });

  it("the payment's, when a milestone is already disputed: covers only those it moved, with their status before", () => {
    let s = holding(stagedPayment([5000n, 3000n, 2000n]));
    s = { ...s, milestones: s.milestones.map((m) => (m.id === 'ms_3' ? { ...m, status: 'pending_release' as const } : m)) };
    s = disputed(s, 'payer', 'ms_1', 'dp_a');
    s = disputed(s, 'platform', undefined, 'dp_b');
    expect(s.disputes![1]).toMatchObject({
      milestoneId: null,
      covers: [
        { id: 'ms_2', from: 'in_custody' },
        { id: 'ms_3', from: 'pending_release' },
      ],
      amountMinor: 5000n,
      respondent: null,
      respondBy: null,
    });
    // The platform's has no timer; the milestone's keeps its own.
    expect(pendingTimers(s).map((t) => t.disputeId)).toEqual(['dp_a']);
  });
});

describe('refusals', () => {
  it('an unknown milestone, a payment or milestone never disputed', () => {
    expect(plan(single(), { action: 'dispute_evidence', party: 'payer', milestoneId: 'ms_9' })).toEqual({
      ok: false,
      reason: 'unknown_milestone',
      message: 'this payment has no milestone ms_9',
    });
    expect(plan(single(), { action: 'dispute_withdraw', party: 'payer' })).toEqual(
      refusedStep(
        'in_custody',
        ['approve', 'refund', 'dispute'],
        'cannot dispute_withdraw a payment whose status is in_custody: it has no dispute',
      ),
    );
    const s = disputed(staged(), 'payer', 'ms_1');
    expect(plan(s, { action: 'dispute_evidence', party: 'payer', milestoneId: 'ms_2', itemId: 'ev_1', hash: 'hmac:e' })).toEqual(
      refusedStep(
        'in_custody',
        ['approve', 'refund', 'dispute'],
        'cannot dispute_evidence a milestone whose status is in_custody: it has no dispute',
      ),
    );
  });

  it('each party out of turn: a party not allowed is told who may; a status that allows nothing is named', () => {
    let s = offer(disputed(single()), 'recipient', 2000n, 'of_1');
    const out = (req: DisputeRequest, now = NOW) => {
      const r = plan(s, req, now);
      if (r.ok || r.reason !== 'dispute_out_of_turn') throw new Error(`not out of turn: ${JSON.stringify(r.ok ? 'ok' : r)}`);
      expect([r.disputeStatus, r.disputeId]).toEqual([s.disputes![0].status, 'dp_1']);
      return r.message;
    };
    expect(out({ action: 'dispute_evidence', party: 'platform', itemId: 'ev_1', hash: 'h' })).toBe(
      'evidence comes from the payer or the recipient, not the platform',
    );
    expect(out({ action: 'dispute_offer', party: 'platform', itemId: 'of_2', refundMinor: 0n })).toBe(
      'offers come from the payer or the recipient; the platform resolves',
    );
    expect(out({ action: 'dispute_accept', party: 'recipient', itemId: 'of_1' })).toBe(
      'only the payer, to whom offer of_1 was made, may accept it: the recipient made it',
    );
    expect(out({ action: 'dispute_decline', party: 'platform', itemId: 'of_1' })).toBe(
      'only the payer, to whom offer of_1 was made, may decline it: the recipient made it',
    );
    expect(out({ action: 'dispute_withdraw', party: 'recipient' })).toBe('only the payer, who opened dispute dp_1, may withdraw it');
    expect(out({ action: 'dispute_withdraw', party: 'payer' }, NOW + HOUR_MS)).toBe(
      'cannot withdraw a dispute whose status is awaiting_response: its respond_by has passed',
    );
    // One millisecond before respond_by the opener may still withdraw.
    expect(plan(s, { action: 'dispute_withdraw', party: 'payer' }, NOW + HOUR_MS - 1).ok).toBe(true);
    s = offer(s, 'payer', 5000n, 'of_2');
    s = step(s, plan(s, { action: 'dispute_decline', party: 'recipient', itemId: 'of_2' }));
    expect(out({ action: 'dispute_accept', party: 'recipient', itemId: 'of_2' })).toBe(
      'cannot accept an offer in a dispute whose status is awaiting_response: offer of_2 is declined',
    );
    expect(plan(s, { action: 'dispute_accept', party: 'payer', itemId: 'of_9' })).toEqual({
      ok: false,
      reason: 'unknown_offer',
      message: 'dispute dp_1 has no offer of_9',
    });
    s = step(s, plan(s, { action: 'dispute_withdraw', party: 'payer' }));
    expect(out({ action: 'dispute_evidence', party: 'payer', itemId: 'ev_1', hash: 'h' })).toBe(
      'cannot add evidence to a dispute whose status is withdrawn',
    );
  });

  it('a payer’s offer answered by the recipient only, also under review: the refusal names who may, not the status', () => {
    let s = offer(disputed(single()), 'payer', 2000n, 'of_1');
    s = step(s, plan(s, { action: 'dispute_evidence', party: 'recipient', itemId: 'ev_1', hash: 'hmac:1' }));
    expect(s.disputes![0].status).toBe('under_review');
    const r = plan(s, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' });
    expect(r).toEqual({
      ok: false,
      reason: 'dispute_out_of_turn',
      disputeStatus: 'under_review',
      disputeId: 'dp_1',
      message: 'only the recipient, to whom offer of_1 was made, may accept it: the payer made it',
    });
  });

  it('at most 20 evidence items', () => {
    let s = disputed(single(), 'platform');
    for (let i = 0; i < MAX_EVIDENCE_ITEMS; i++) {
      s = step(s, plan(s, { action: 'dispute_evidence', party: 'payer', itemId: `ev_${i}`, hash: `hmac:${i}` }));
    }
    const r = plan(s, { action: 'dispute_evidence', party: 'recipient', itemId: 'ev_x', hash: 'hmac:x' });
    expect(r.ok ? '' : r.message).toBe(
      'cannot add evidence to a dispute whose status is awaiting_response: it holds 20 evidence items, the most it may',
    );
  });

  it('offers from 0 to the amount disputed; a part of a dispute over several milestones refused', () => {
    const s = disputed(single());
    expect(plan(s, { action: 'dispute_offer', party: 'payer', itemId: 'of_1', refundMinor: 10001n })).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'refund_amount must be from 0 to the amount disputed, 100.00 USD',
    });
    expect(plan(s, { action: 'dispute_offer', party: 'payer', itemId: 'of_1', refundMinor: -1n }).ok).toBe(false);
    for (const r of [0n, 10000n])
      expect(plan(s, { action: 'dispute_offer', party: 'payer', itemId: 'of_1', refundMinor: r }).ok).toBe(true);
    const both = disputed(staged(), 'payer');
    expect(plan(both, { action: 'dispute_offer', party: 'payer', itemId: 'of_1', refundMinor: 100n })).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'a dispute over 2 milestones settles a part only milestone by milestone: open the dispute on a milestone',
    });
    for (const r of [0n, 10000n])
      expect(plan(both, { action: 'dispute_offer', party: 'payer', itemId: 'of_1', refundMinor: r }).ok).toBe(true);
  });
});

describe("a dispute's record steps", () => {
  it('evidence: its record; the respondent’s first moves it under review, the opener’s does not', () => {
    let s = disputed(staged(), 'payer', 'ms_1');
    const byOpener = plan(s, { action: 'dispute_evidence', party: 'payer', milestoneId: 'ms_1', itemId: 'ev_1', hash: 'hmac:1' });
    if (!byOpener.ok) throw new Error(byOpener.message);
    expect(byOpener).toMatchObject({
      action: 'dispute_evidence',
      milestoneId: 'ms_1',
      to: 'disputed',
      movement: { deposited: 0n, refunded: 0n, released: 0n, fee: 0n },
      changes: [],
      events: [{ event: 'payment.dispute_updated' }],
      disputeId: 'dp_1',
    });
    expect(byOpener.milestones).toBe(s.milestones);
    s = step(s, byOpener);
    expect(s.disputes![0]).toMatchObject({
      status: 'awaiting_response',
      evidence: [{ id: 'ev_1', party: 'payer', hash: 'hmac:1', submittedAt: at(NOW) }],
    });
    s = step(s, plan(s, { action: 'dispute_evidence', party: 'recipient', milestoneId: 'ms_1', itemId: 'ev_2', hash: 'hmac:2' }));
    expect(s.disputes![0].status).toBe('under_review');
    expect(pendingTimers(s)).toEqual([]);
    s = step(s, plan(s, { action: 'dispute_evidence', party: 'recipient', milestoneId: 'ms_1', itemId: 'ev_3', hash: 'hmac:3' }));
    expect(s.disputes![0].status).toBe('under_review');
    expect(planDisputeDefault(s, 'dp_1', NOW + 2 * HOUR_MS)).toBeUndefined();
  });

  it("offers: a newer one supersedes only the same party's still proposed", () => {
    let s = offer(disputed(single()), 'payer', 1000n, 'of_1', 'hmac:n');
    s = offer(s, 'recipient', 500n, 'of_2');
    s = step(s, plan(s, { action: 'dispute_decline', party: 'recipient', itemId: 'of_1' }));
    s = offer(s, 'payer', 3000n, 'of_3');
    s = offer(s, 'payer', 4000n, 'of_4');
    expect(s.disputes![0].offers.map((o) => [o.id, o.proposedBy, o.refundMinor, o.noteHash, o.status])).toEqual([
      ['of_1', 'payer', 1000n, 'hmac:n', 'declined'],
      ['of_2', 'recipient', 500n, null, 'proposed'],
      ['of_3', 'payer', 3000n, null, 'superseded'],
      ['of_4', 'payer', 4000n, null, 'proposed'],
    ]);
    expect(s.disputes![0].offers[3].createdAt).toBe(at(NOW));
  });
});

describe("a dispute's endings", () => {
  it('an accepted offer of 0 releases everything, of everything refunds it, the fee pro rata', () => {
    const zero = offer(disputed(single()), 'recipient', 0n, 'of_1');
    const released = step(zero, plan(zero, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' }));
    expect([released.status, released.releasedMinor, released.feeCollectedMinor]).toEqual(['released', 10000n, 1000n]);
    const all = offer(disputed(single()), 'recipient', 10000n, 'of_1');
    const refunded = step(all, plan(all, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' }));
    expect([refunded.status, refunded.refundedMinor, refunded.disputes![0].resolution]).toEqual([
      'refunded',
      10000n,
      { refundMinor: 10000n, releaseMinor: 0n, decidedBy: 'agreement', at: at(NOW) },
    ]);
  });

  it('an offer of more than is still held (a refund came since) is refused when accepted', () => {
    let s = offer(disputed(single()), 'recipient', 9000n, 'of_1');
    const part = planTransition(s, { action: 'refund', amountMinor: 2000n }, NOW);
    s = step(s, part);
    expect(plan(s, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' })).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'refund_amount must be at most the amount held, 80.00 USD',
    });
  });

  it("the payment's agreement over two milestones, everything refunded: one step, both milestones, the dispute resolved", () => {
    const s = offer(disputed(staged(), 'payer'), 'recipient', 10000n, 'of_1');
    const p = plan(s, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' });
    if (!p.ok) throw new Error(p.message);
    expect(p.changes.map((c) => [c.id, c.from, c.to])).toEqual([
      ['ms_1', 'disputed', 'refunded'],
      ['ms_2', 'disputed', 'refunded'],
    ]);
    expect(p.events.map((e) => e.event)).toEqual(['payment.refunded', 'payment.dispute_updated']);
    const { state, entry } = applyTransition(s, p, meta);
    expect([entry.action, entry.event, entry.disputeId]).toEqual(['dispute_accept', 'payment.refunded', 'dp_1']);
    expect(state.disputes![0].resolution).toMatchObject({ refundMinor: 10000n, releaseMinor: 0n, decidedBy: 'agreement' });
  });

  it('a withdrawal: each milestone back to its status, its auto-release afresh; only payment.dispute_updated', () => {
    let s = stagedPayment([6000n, 4000n], { autoReleaseAfterSeconds: 60 });
    s = holding(s, 'pending_release');
    s = { ...s, milestones: s.milestones.map((m) => ({ ...m, releaseAt: at(NOW + 5 * HOUR_MS) })) };
    s = disputed(s, 'recipient', 'ms_1');
    const p = plan(s, { action: 'dispute_withdraw', party: 'recipient', milestoneId: 'ms_1' }, NOW + 1000);
    if (!p.ok) throw new Error(p.message);
    expect(p.events).toEqual([{ event: 'payment.dispute_updated' }]);
    const { state, entry } = applyTransition(s, p, meta);
    expect([entry.event, entry.from, entry.to, entry.milestoneId]).toEqual([
      'payment.dispute_updated',
      'disputed',
      'pending_release',
      'ms_1',
    ]);
    expect(state.milestones[0]).toMatchObject({ status: 'pending_release', releaseAt: at(NOW + 1000 + 60_000) });
    expect(state.disputes![0]).toMatchObject({
      status: 'withdrawn',
      resolution: { refundMinor: 0n, releaseMinor: 0n, decidedBy: 'withdrawal', at: at(NOW + 1000) },
    });
  });

  it('a decided dispute leaves no offer proposed: each still proposed expires, whoever decided it', () => {
    const open = () => offer(offer(disputed(single()), 'recipient', 2000n, 'of_1'), 'payer', 5000n, 'of_2');
    const statuses = (s: PaymentState) => s.disputes![0].offers.map((o) => [o.id, o.status]);
    const s = open();
    const byDefault = step(s, planDisputeDefault(s, 'dp_1', NOW + HOUR_MS));
    expect([byDefault.disputes![0].resolution?.decidedBy, statuses(byDefault)]).toEqual([
      'default',
      [
        ['of_1', 'expired'],
        ['of_2', 'expired'],
      ],
    ]);
    const agreed = step(s, plan(s, { action: 'dispute_accept', party: 'payer', itemId: 'of_1' }));
    expect(statuses(agreed)).toEqual([
      ['of_1', 'accepted'],
      ['of_2', 'expired'],
    ]);
    const resolved = step(s, planTransition(s, { action: 'resolve', resolution: 'refund' }, NOW));
    expect(statuses(resolved)).toEqual([
      ['of_1', 'expired'],
      ['of_2', 'expired'],
    ]);
    const withdrawn = step(s, plan(s, { action: 'dispute_withdraw', party: 'payer' }));
    expect(statuses(withdrawn)).toEqual([
      ['of_1', 'expired'],
      ['of_2', 'expired'],
    ]);
    // A declined or superseded offer keeps its status.
    let other = offer(open(), 'payer', 6000n, 'of_3');
    other = step(other, plan(other, { action: 'dispute_decline', party: 'payer', itemId: 'of_1' }));
    expect(statuses(step(other, planTransition(other, { action: 'resolve', resolution: 'release' }, NOW)))).toEqual([
      ['of_1', 'declined'],
      ['of_2', 'superseded'],
      ['of_3', 'expired'],
    ]);
  });

  it('the default: for the opener, of its milestones only; nothing when it is not due to decide', () => {
    const s = disputed(staged(), 'payer', 'ms_2');
    expect(planDisputeDefault(s, 'dp_9', NOW + HOUR_MS)).toBeUndefined();
    const p = planDisputeDefault(s, 'dp_1', NOW + HOUR_MS)!;
    expect([p.action, p.milestoneId, p.changes.map((c) => [c.id, c.to])]).toEqual(['dispute_default', 'ms_2', [['ms_2', 'refunded']]]);
    const after = step(s, p);
    expect(after.disputes![0].resolution).toEqual({ refundMinor: 4000n, releaseMinor: 0n, decidedBy: 'default', at: at(NOW + HOUR_MS) });
    expect(planDisputeDefault(after, 'dp_1', NOW + 2 * HOUR_MS)).toBeUndefined();
    // Its milestone refunded meanwhile by the platform: nothing left for the default to decide.
    const refunded = step(s, planTransition(s, { action: 'refund', milestoneId: 'ms_2' }, NOW));
    expect(refunded.disputes![0]).toMatchObject({ status: 'resolved', resolution: { decidedBy: 'platform', refundMinor: 4000n } });
    expect(planDisputeDefault({ ...s, milestones: refunded.milestones }, 'dp_1', NOW + HOUR_MS)).toBeUndefined();
  });

  it("a resolve of one milestone of the payment's dispute over two leaves it open, until the other's", () => {
    const s = disputed(staged(), 'platform');
    const first = step(s, planTransition(s, { action: 'resolve', resolution: 'release', milestoneId: 'ms_1' }, NOW));
    expect(first.disputes![0].status).toBe('awaiting_response');
    const second = planTransition(first, { action: 'resolve', resolution: 'refund', milestoneId: 'ms_2' }, NOW);
    if (!second.ok) throw new Error(second.message);
    expect(second.events.at(-1)).toEqual({ event: 'payment.dispute_updated' });
    expect(step(first, second).disputes![0].resolution).toEqual({
      refundMinor: 4000n,
      releaseMinor: 0n,
      decidedBy: 'platform',
      at: at(NOW),
    });
  });

  it('an ended dispute is not ended again; a step that leaves no milestone of it is its own', () => {
    const s = disputed(single(), 'platform');
    const ended = step(s, planTransition(s, { action: 'resolve', resolution: 'refund' }, NOW));
    const again = planTransition(
      { ...ended, status: 'disputed', milestones: s.milestones },
      { action: 'resolve', resolution: 'release' },
      NOW,
    );
    if (!again.ok) throw new Error(again.message);
    expect(again.disputeId).toBeUndefined();
    const partial = planTransition(s, { action: 'refund', amountMinor: 100n }, NOW);
    if (!partial.ok) throw new Error(partial.message);
    expect(closeDisputes(s, partial, 'platform', NOW)).toBe(partial);
  });
});

describe('timers and the plan', () => {
  it("another milestone's due auto-release does not stop a dispute's action; its own respond_by does", () => {
    let s = disputed(staged(), 'payer', 'ms_1');
    s = {
      ...s,
      milestones: s.milestones.map((m) => (m.id === 'ms_2' ? { ...m, status: 'pending_release' as const, releaseAt: at(NOW) } : m)),
    };
    expect(plan(s, { action: 'dispute_evidence', party: 'payer', milestoneId: 'ms_1', itemId: 'ev_1', hash: 'h' }, NOW + 1).ok).toBe(true);
    const late = plan(s, { action: 'dispute_evidence', party: 'payer', milestoneId: 'ms_1', itemId: 'ev_1', hash: 'h' }, NOW + HOUR_MS);
    expect(late.ok ? '' : late.message).toBe(
      'cannot add evidence to a dispute whose status is awaiting_response: its respond_by has passed',
    );
  });

  it("a client's request while a dispute's respond_by is due names it", () => {
    const s = disputed(single());
    expect(planTransition(s, { action: 'resolve', resolution: 'refund' }, NOW + HOUR_MS)).toMatchObject({
      ok: false,
      message: "cannot resolve a payment whose status is disputed: its dispute's respond_by has passed",
    });
  });
});

describe('events', () => {
  it('a withdrawal emits payment.dispute_updated alone; a dispute step ends with it; others as before', () => {
    const changes = [{ id: 'ms_1', from: 'disputed' as const, to: 'pending_release' as const }];
    const base = { from: 'disputed' as const, to: 'pending_release' as const, refunded: 0n, changes };
    expect(stepEvents({ ...base, action: 'dispute_withdraw', disputeId: 'dp_1' }, true)).toEqual([{ event: 'payment.dispute_updated' }]);
    expect(stepEvents({ ...base, action: 'dispute_withdraw' }, true)).toEqual([]);
    expect(stepEvents({ ...base, disputeId: 'dp_1' }, false)).toEqual([
      { event: 'payment.approved' },
      { event: 'payment.dispute_updated' },
    ]);
    expect(stepEvents(base, false)).toEqual([{ event: 'payment.approved' }]);
  });

  it('the projection emits the same, the step’s own event last', () => {
    const s = disputed(single());
    const { state, entry } = applyTransition(
      s,
      plan(s, { action: 'dispute_evidence', party: 'payer', itemId: 'ev_1', hash: 'h' }) as PlannedStep,
      meta,
    );
    expect(emittedEvents(state, entry).map((e) => [e.event, e.ordinal])).toEqual([['payment.dispute_updated', 0]]);
    const opened = applyTransition(
      single(),
      openDispute(
        single(),
        planTransition(single(), { action: 'dispute' }, NOW) as PlannedStep,
        {
          id: 'dp_1',
          openedBy: 'payer',
          respondWithinSeconds: 1,
          reason: null,
        },
        NOW,
      ),
      meta,
    );
    expect(opened.entry.event).toBe('payment.disputed');
    expect(emittedEvents(opened.state, opened.entry).map((e) => [e.event, e.ordinal])).toEqual([
      ['payment.disputed', -1],
      ['payment.dispute_updated', 0],
    ]);
  });
});

describe('texts and the view', () => {
  const withAll = () => {
    let s = disputed(single());
    s = step(s, plan(s, { action: 'dispute_evidence', party: 'payer', itemId: 'ev_1', hash: 'hmac:e' }));
    s = offer(s, 'recipient', 2500n, 'of_1', 'hmac:n');
    return offer(s, 'payer', 0n, 'of_2');
  };
  /** The disputes of `withAll` with their texts: its evidence, its first offer's note and its reason. */
  const withAllTexts = (s: ReturnType<typeof withAll>) =>
    withTexts(
      s.disputes!,
      new Map([
        ['hmac:e', 'the evidence'],
        ['hmac:n', 'a note'],
        ['hmac:r', 'why'],
      ]),
    );

  it('hashes to look up, texts filled in (erased when not found), and taken out again', () => {
    const s = withAll();
    expect(disputeHashes(undefined)).toEqual([]);
    expect(disputeHashes(s.disputes)).toEqual(['hmac:r', 'hmac:e', 'hmac:n']);
    const filled = withTexts(
      s.disputes!,
      new Map([
        ['hmac:e', 'the evidence'],
        ['hmac:r', 'the reason'],
      ]),
    );
    expect(filled[0]).toMatchObject({
      reasonText: 'the reason',
      evidence: [{ text: 'the evidence' }],
      offers: [{ note: REDACTED }, { note: null }],
    });
    expect(withoutTexts(filled[0])).toEqual(s.disputes![0]);
    expect(withTexts([{ ...s.disputes![0], reason: null }], new Map())[0].reasonText).toBeNull();
  });

  it('the view: amounts in major units, the release the rest of the disputed amount, texts shown or erased', () => {
    const s = withAll();
    const [d] = withAllTexts(s);
    expect(disputeView(s, undefined)).toBeNull();
    expect(disputeView(s, d)).toEqual({
      id: 'dp_1',
      status: 'awaiting_response',
      opened_by: 'payer',
      respondent: 'recipient',
      reason: 'why',
      amount: 100,
      respond_by: at(NOW + HOUR_MS),
      created_at: at(NOW),
      evidence: [{ id: 'ev_1', party: 'payer', text: 'the evidence', submitted_at: at(NOW) }],
      offers: [
        {
          id: 'of_1',
          proposed_by: 'recipient',
          refund_amount: 25,
          release_amount: 75,
          note: 'a note',
          status: 'proposed',
          created_at: at(NOW),
        },
        { id: 'of_2', proposed_by: 'payer', refund_amount: 0, release_amount: 100, note: null, status: 'proposed', created_at: at(NOW) },
      ],
      resolution: null,
    });
    expect(
      disputeView(s, {
        ...d,
        reason: null,
        reasonText: null,
        resolution: { refundMinor: 2500n, releaseMinor: 7500n, decidedBy: 'agreement', at: 'x' },
      }),
    ).toMatchObject({
      reason: null,
      resolution: { refund_amount: 25, release_amount: 75, decided_by: 'agreement', at: 'x' },
    });
    const view = paymentView({ ...paymentDetails(s), disputes: [d] });
    expect(view.dispute?.id).toBe('dp_1');
    expect(view.milestones[0].dispute).toEqual(view.dispute);
  });

  it('a redaction erases the texts in a payment view and a milestone view', () => {
    const s = withAll();
    const [d] = withAllTexts(s);
    const view = paymentView({ ...paymentDetails(s), disputes: [d] }) as unknown as Record<string, unknown>;
    const erased = redactView(view) as any;
    for (const dv of [erased.dispute, erased.milestones[0].dispute]) {
      expect(dv.reason).toBe(REDACTED);
      expect(dv.evidence.map((e: any) => e.text)).toEqual([REDACTED]);
      expect(dv.offers.map((o: any) => o.note)).toEqual([REDACTED, null]);
      expect(dv.offers.map((o: any) => o.refund_amount)).toEqual([25, 0]);
    }
    expect(redactMilestoneView({ reference: null, description: 'x', dispute: null })).toEqual({
      reference: null,
      description: REDACTED,
      recipient_email: REDACTED,
      dispute: null,
    });
    const none = redactView({ ...view, dispute: { ...(view.dispute as object), reason: null } }) as any;
    expect(none.dispute.reason).toBeNull();
  });
});
