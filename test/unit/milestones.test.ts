/**
 * Milestones (src/payments/milestones.rules.ts and their paths through planTransition, the timers, the
 * emitted events and the personal data): the payment's status from its milestones', the events a
 * step emits, the money per milestone and the fee across them, and a property over random payments
 * and random steps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type HistoryEntry,
  type MilestoneChange,
  type MilestoneState,
  type PaymentState,
  type PaymentStatus,
  type Resolution,
  type TransitionAction,
  CLIENT_ACTIONS,
  MILESTONE_ACTIONS,
} from '../../src/payments/paymentTypes.rules';
import { checkTransition, creationEntry } from '../../src/payments/payment.rules';
import { applyTransition } from '../../src/payments/paymentPlan.rules';
import { amountsOf, withAmounts } from '../../src/payments/paymentMoney.rules';
import { dueTimer, nextDeadlineOf, pendingTimer, pendingTimers } from '../../src/payments/paymentTimers.rules';
import {
  MILESTONE_EVENTS,
  PAYMENT_STATUS_RULES,
  STATUS_EVENTS,
  defaultMilestoneId,
  ledgerMovements,
  paymentStatusOf,
  stepEvents,
  sumOfMilestones,
  wholeMilestone,
} from '../../src/payments/milestones.rules';
import { type PlannedStep, type TransitionRequestRule, planTransition } from '../../src/payments/paymentPlan.rules';
import { emittedEvents } from '../../src/payments/transitionEvents.rules';
import { REDACTED, personalOf, redactView, redactedPersonal, withPersonal, withoutPersonal } from '../../src/payments/personalData.rules';
import { paymentView } from '../../src/payments/payment.view';
import { paymentDetails, paymentState, refusedStep, stagedPayment } from './fixtures';

const NOW = Date.parse('2026-11-24T08:00:00.000Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

function planned(state: PaymentState, req: TransitionRequestRule, now = NOW, client = true): PlannedStep {
  const plan = planTransition(state, req, now, client);
  if (!plan.ok) throw new Error(plan.message);
  return plan;
}

function step(state: PaymentState, req: TransitionRequestRule, now = NOW, client = true) {
  return applyTransition(state, planned(state, req, now, client), { actor: 'test', reason: null, at: iso(now) });
}

const run = (state: PaymentState, ...reqs: TransitionRequestRule[]) => reqs.reduce((s, req) => step(s, req).state, state);

const milestone = (state: PaymentState, id: string) => state.milestones.find((m) => m.id === id)!;

/** The events of a step, a milestone event with its milestone's id. */
const named = (events: readonly { event: string; milestoneId?: string }[]) =>
  events.map((e) => (e.milestoneId === undefined ? e.event : `${e.event} ${e.milestoneId}`));

/** The worked example of docs/money.md: 1000.00 USD, fee 29.99, design 200.00, build 500.00, launch 300.00. */
const worked = () => stagedPayment([20000n, 50000n, 30000n], { platformFeeMinor: 2999n });

describe('PAYMENT_STATUS_RULES: the payment’s status from its milestones’', () => {
  const m = (status: PaymentStatus, held = 0n, released = 0n) => ({ status, heldMinor: held, releasedMinor: released });

  it('are these rules, in this order (the first that holds wins)', () => {
    expect(PAYMENT_STATUS_RULES.map((r) => [r.status, r.when])).toEqual([
      ['pending_deposit', 'every milestone awaits the deposit'],
      ['cancelled', 'the payment was cancelled before its deposit'],
      ['disputed', 'any milestone is disputed'],
      ['pending_release', 'money is held and every milestone holding money is pending release'],
      ['in_custody', 'money is held'],
      ['released', 'nothing is held and something was released'],
      ['refunded', 'nothing is held and nothing was released'],
    ]);
  });

  // Each case: the milestones, every rule that holds for them, and so the payment's status (the first).
  const cases: [string, ReturnType<typeof m>[], PaymentStatus[]][] = [
    ['all await the deposit', [m('pending_deposit'), m('pending_deposit')], ['pending_deposit', 'refunded']],
    ['one awaits the deposit, one is cancelled', [m('pending_deposit'), m('cancelled')], ['refunded']],
    ['all cancelled', [m('cancelled'), m('cancelled')], ['cancelled', 'refunded']],
    ['one disputed, one in custody', [m('in_custody', 5n), m('disputed', 5n)], ['disputed', 'in_custody', 'refunded']],
    ['one disputed, one pending release', [m('pending_release', 5n), m('disputed', 5n)], ['disputed', 'in_custody', 'refunded']],
    [
      'one pending release, one released',
      [m('pending_release', 5n), m('released', 0n, 5n)],
      ['pending_release', 'in_custody', 'released', 'refunded'],
    ],
    ['one pending release, one refunded whole', [m('refunded'), m('pending_release', 5n)], ['pending_release', 'in_custody', 'refunded']],
    ['one pending release, one in custody', [m('pending_release', 5n), m('in_custody', 5n)], ['in_custody', 'refunded']],
    ['one in custody, one refunded whole', [m('refunded'), m('in_custody', 5n)], ['in_custody', 'refunded']],
    ['one in custody, one released', [m('released', 0n, 5n), m('in_custody', 5n)], ['in_custody', 'released', 'refunded']],
    ['one refunded whole, one released', [m('refunded'), m('released', 0n, 5n)], ['released', 'refunded']],
    ['one released, one refunded whole', [m('released', 0n, 5n), m('refunded')], ['released', 'refunded']],
    ['all refunded whole', [m('refunded'), m('refunded')], ['refunded']],
    ['one released', [m('released', 0n, 1n)], ['released', 'refunded']],
    ['one pending release', [m('pending_release', 1n)], ['pending_release', 'in_custody', 'refunded']],
  ];

  it.each(cases)('%s', (_, milestones, holding) => {
    expect(PAYMENT_STATUS_RULES.filter((r) => r.holds(milestones)).map((r) => r.status)).toEqual(holding);
    expect(paymentStatusOf(milestones)).toBe(holding[0]);
  });

  it('with one milestone, the payment’s status is the milestone’s', () => {
    const amounts: Record<PaymentStatus, [bigint, bigint]> = {
      pending_deposit: [0n, 0n],
      in_custody: [10n, 0n],
      pending_release: [10n, 0n],
      disputed: [10n, 0n],
      released: [0n, 10n],
      refunded: [0n, 0n],
      cancelled: [0n, 0n],
    };
    for (const [status, [held, released]] of Object.entries(amounts) as [PaymentStatus, [bigint, bigint]][]) {
      expect(paymentStatusOf([m(status, held, released)])).toBe(status);
    }
  });
});

describe('stepEvents: the events of one step, in delivery order', () => {
  const change = (id: string, from: PaymentStatus, to: PaymentStatus): MilestoneChange => ({ id, from, to });
  /** A step: the payment's status before and after, the money it refunded, its milestones' changes. */
  const stepOf = (from: PaymentStatus, to: PaymentStatus, refunded: bigint, ...changes: MilestoneChange[]) => ({
    from,
    to,
    refunded,
    changes,
  });

  it('are these tables', () => {
    expect(STATUS_EVENTS).toEqual({
      in_custody: { from: 'pending_deposit', event: 'payment.deposited' },
      pending_release: { event: 'payment.approved' },
      disputed: { event: 'payment.disputed' },
      released: { event: 'payment.released' },
      refunded: { event: 'payment.refunded' },
      cancelled: { event: 'payment.cancelled' },
    });
    expect(MILESTONE_EVENTS).toEqual({
      pending_release: 'payment.milestone_approved',
      released: 'payment.milestone_released',
      disputed: 'payment.milestone_disputed',
    });
  });

  it('each milestone event first (staged only), then the status event', () => {
    const approved = ['ms_1', 'ms_3'].map((id) => change(id, 'in_custody', 'pending_release'));
    const approve = stepOf('in_custody', 'pending_release', 0n, ...approved);
    expect(stepEvents(approve, true)).toEqual([
      { event: 'payment.milestone_approved', milestoneId: 'ms_1' },
      { event: 'payment.milestone_approved', milestoneId: 'ms_3' },
      { event: 'payment.approved' },
    ]);
    expect(stepEvents(approve, false)).toEqual([{ event: 'payment.approved' }]);
    const dispute = stepOf('pending_release', 'disputed', 0n, change('ms_2', 'pending_release', 'disputed'));
    expect(named(stepEvents(dispute, true))).toEqual(['payment.milestone_disputed ms_2', 'payment.disputed']);
  });

  it('no milestone event for a milestone that took a status without one, or kept its status', () => {
    const deposited = ['ms_1', 'ms_2'].map((id) => change(id, 'pending_deposit', 'in_custody'));
    const deposit = stepOf('pending_deposit', 'in_custody', 0n, ...deposited);
    expect(stepEvents(deposit, true)).toEqual([{ event: 'payment.deposited' }]);
    const cancel = stepOf('pending_deposit', 'cancelled', 0n, change('ms_1', 'pending_deposit', 'cancelled'));
    expect(stepEvents(cancel, true)).toEqual([{ event: 'payment.cancelled' }]);
    // A partial refund of a milestone pending release: it stays pending release, as the payment.
    const partial = stepOf('pending_release', 'pending_release', 5n, change('ms_1', 'pending_release', 'pending_release'));
    expect(stepEvents(partial, true)).toEqual([{ event: 'payment.partially_refunded' }]);
  });

  it('a payment that keeps its status emits no status event (a second milestone disputed, one approved)', () => {
    const dispute = stepOf('disputed', 'disputed', 0n, change('ms_2', 'in_custody', 'disputed'));
    expect(stepEvents(dispute, true)).toEqual([{ event: 'payment.milestone_disputed', milestoneId: 'ms_2' }]);
    const approve = stepOf('in_custody', 'in_custody', 0n, change('ms_1', 'in_custody', 'pending_release'));
    expect(stepEvents(approve, true)).toEqual([{ event: 'payment.milestone_approved', milestoneId: 'ms_1' }]);
  });

  it('payment.deposited only from pending_deposit: a return from disputed to in_custody has no status event', () => {
    const resolved = stepOf('disputed', 'in_custody', 0n, change('ms_1', 'disputed', 'released'));
    expect(stepEvents(resolved, true)).toEqual([{ event: 'payment.milestone_released', milestoneId: 'ms_1' }]);
    expect(stepEvents(resolved, false)).toEqual([]);
    expect(stepEvents(stepOf('pending_deposit', 'in_custody', 0n), false)).toEqual([{ event: 'payment.deposited' }]);
  });

  it('payment.partially_refunded only when money went back and the payment did not become refunded', () => {
    const split = stepOf('disputed', 'released', 20n, change('ms_3', 'disputed', 'released'));
    expect(named(stepEvents(split, true))).toEqual(['payment.partially_refunded', 'payment.milestone_released ms_3', 'payment.released']);
    expect(named(stepEvents(split, false))).toEqual(['payment.partially_refunded', 'payment.released']);
    expect(named(stepEvents({ ...split, refunded: 1n }, false))).toEqual(['payment.partially_refunded', 'payment.released']);
    expect(named(stepEvents({ ...split, refunded: 0n }, false))).toEqual(['payment.released']);
    const refund = stepOf('in_custody', 'refunded', 20n, change('ms_1', 'in_custody', 'refunded'));
    expect(stepEvents(refund, true)).toEqual([{ event: 'payment.refunded' }]);
    const partial = stepOf('in_custody', 'in_custody', 20n, change('ms_1', 'in_custody', 'in_custody'));
    expect(stepEvents(partial, true)).toEqual([{ event: 'payment.partially_refunded' }]);
  });
});

describe('a milestone’s money', () => {
  const m: MilestoneState = {
    ...wholeMilestone(paymentState()),
    id: 'ms_1',
    amountMinor: 1000n,
    status: 'released',
    heldMinor: 0n,
    releasedMinor: 700n,
    refundedMinor: 300n,
    feeCollectedMinor: 21n,
  };

  it('amountsOf reads it, withAmounts writes it', () => {
    expect(amountsOf(m)).toEqual({ held: 0n, released: 700n, refunded: 300n, feeCollected: 21n });
    expect(withAmounts(m, { held: 1n, released: 2n, refunded: 3n, feeCollected: 4n })).toEqual({
      ...m,
      heldMinor: 1n,
      releasedMinor: 2n,
      refundedMinor: 3n,
      feeCollectedMinor: 4n,
    });
  });

  it('sumOfMilestones adds each amount over the milestones', () => {
    const other = { ...m, id: 'ms_2', heldMinor: 4000n, releasedMinor: 50n, refundedMinor: 6n, feeCollectedMinor: 1n };
    expect(sumOfMilestones([m, other])).toEqual({ held: 4000n, released: 750n, refunded: 306n, feeCollected: 22n });
    expect(sumOfMilestones([])).toEqual({ held: 0n, released: 0n, refunded: 0n, feeCollected: 0n });
  });
});

describe('the one milestone of a payment created without milestones', () => {
  it('has the id of the payment’s ULID, with ms_ for the payment’s leading pay_ alone', () => {
    expect(defaultMilestoneId('pay_01JD0000000000000000000000')).toBe('ms_01JD0000000000000000000000');
    expect(defaultMilestoneId('01JDpay_')).toBe('ms_01JDpay_');
  });

  it('is the whole amount, with the payment’s status, recipient and auto-release, nothing moved unless given', () => {
    const p = { id: 'pay_01X', amountMinor: 500n, status: 'pending_deposit', autoReleaseAfterSeconds: 60 } as const;
    expect(wholeMilestone(p)).toStrictEqual({
      id: 'ms_01X',
      amountMinor: 500n,
      status: 'pending_deposit',
      heldMinor: 0n,
      releasedMinor: 0n,
      refundedMinor: 0n,
      feeCollectedMinor: 0n,
      autoReleaseAfterSeconds: 60,
      releaseAt: null,
    });
    expect(
      wholeMilestone({ ...p, status: 'released', heldMinor: 1n, releasedMinor: 400n, refundedMinor: 99n, feeCollectedMinor: 7n }),
    ).toMatchObject({ status: 'released', heldMinor: 1n, releasedMinor: 400n, refundedMinor: 99n, feeCollectedMinor: 7n });
  });
});

describe('ledgerMovements: one ledger entry per milestone that moved money', () => {
  const state = paymentState();
  const entry = (extra: Partial<HistoryEntry>): HistoryEntry => ({
    seq: 2,
    action: 'refund',
    from: 'in_custody',
    to: 'refunded',
    event: 'payment.refunded',
    actor: 'a',
    reason: null,
    at: '2026-11-24T00:00:00.000Z',
    ...extra,
  });
  const record = (refunded: bigint) => ({ deposited: 0n, refunded, released: 0n, fee: 0n });

  it('from the entry’s changes, skipping a milestone that moved none', () => {
    const changes: MilestoneChange[] = [
      { id: 'ms_1', from: 'in_custody', to: 'refunded', movement: record(100n) },
      { id: 'ms_2', from: 'released', to: 'released' },
      { id: 'ms_3', from: 'disputed', to: 'refunded', movement: record(7n) },
    ];
    expect(ledgerMovements(state, entry({ movement: record(107n), changes }))).toEqual([
      { milestoneId: 'ms_1', movement: { deposited: 0n, refunded: 100n, released: 0n, fee: 0n } },
      { milestoneId: 'ms_3', movement: { deposited: 0n, refunded: 7n, released: 0n, fee: 0n } },
    ]);
  });

  it('an entry recorded before milestones (no `changes`) moved its payment’s one milestone', () => {
    expect(ledgerMovements(state, entry({ movement: record(12550n) }))).toEqual([
      { milestoneId: 'ms_01JD0000000000000000000000', movement: { deposited: 0n, refunded: 12550n, released: 0n, fee: 0n } },
    ]);
    expect(ledgerMovements(state, entry({ action: 'approve', to: 'pending_release' }))).toEqual([]);
  });
});

describe('the worked example (docs/money.md), step by step', () => {
  it('deposit: every milestone in custody, holding its amount; one deposit per milestone', () => {
    const before = worked();
    const plan = planned(before, { action: 'deposit' });
    expect(plan).toStrictEqual({
      ok: true,
      action: 'deposit',
      to: 'in_custody',
      movement: { deposited: 100000n, refunded: 0n, released: 0n, fee: 0n },
      after: { held: 100000n, released: 0n, refunded: 0n, feeCollected: 0n },
      milestones: before.milestones.map((m) => ({ ...m, status: 'in_custody', heldMinor: m.amountMinor })),
      changes: before.milestones.map((m) => ({
        id: m.id,
        from: 'pending_deposit',
        to: 'in_custody',
        movement: { deposited: m.amountMinor, refunded: 0n, released: 0n, fee: 0n },
      })),
      events: [{ event: 'payment.deposited' }],
    });
    const { state, entry } = applyTransition(before, plan, { actor: 'key_1', reason: null, at: iso(NOW) });
    expect(entry).toStrictEqual({
      seq: 2,
      action: 'deposit',
      from: 'pending_deposit',
      to: 'in_custody',
      event: 'payment.deposited',
      actor: 'key_1',
      reason: null,
      at: iso(NOW),
      movement: { deposited: 100000n, refunded: 0n, released: 0n, fee: 0n },
      changes: plan.changes,
    });
    expect(state).toMatchObject({ status: 'in_custody', heldMinor: 100000n, version: 2, milestones: plan.milestones });
    expect(ledgerMovements(state, entry).map((l) => [l.milestoneId, l.movement.deposited])).toEqual([
      ['ms_1', 20000n],
      ['ms_2', 50000n],
      ['ms_3', 30000n],
    ]);
  });

  it('through to the end: released 850.00, refunded 150.00, fee 25.49 collected across three releases', () => {
    let state = run(worked(), { action: 'deposit' });

    // Design approved: a milestone event only, the payment stays in custody.
    let { state: next, entry } = step(state, { action: 'approve', milestoneId: 'ms_1' });
    expect(entry).toStrictEqual({
      seq: 3,
      action: 'approve',
      from: 'in_custody',
      to: 'in_custody',
      event: 'payment.milestone_approved',
      actor: 'test',
      reason: null,
      at: iso(NOW),
      milestoneId: 'ms_1',
      changes: [{ id: 'ms_1', from: 'in_custody', to: 'pending_release' }],
    });
    expect(next.milestones.map((m) => m.status)).toEqual(['pending_release', 'in_custody', 'in_custody']);
    state = next;

    // Design released: 200.00, the fee floor(2999 × 20000 / 100000) = 599, all on design's entry.
    let plan = planned(state, { action: 'release', milestoneId: 'ms_1' });
    expect(plan).toMatchObject({ milestoneId: 'ms_1', to: 'in_custody', movement: { released: 20000n, fee: 599n } });
    expect(named(plan.events)).toEqual(['payment.milestone_released ms_1']);
    state = step(state, { action: 'release', milestoneId: 'ms_1' }).state;
    expect(milestone(state, 'ms_1')).toMatchObject({
      status: 'released',
      heldMinor: 0n,
      releasedMinor: 20000n,
      feeCollectedMinor: 599n,
    });
    expect(state).toMatchObject({ status: 'in_custody', heldMinor: 80000n, releasedMinor: 20000n, feeCollectedMinor: 599n });

    // Build partly refunded: 50.00 back, build holds 450.00 and stays in custody.
    plan = planned(state, { action: 'refund', milestoneId: 'ms_2', amountMinor: 5000n });
    expect(plan.changes).toEqual([
      { id: 'ms_2', from: 'in_custody', to: 'in_custody', movement: { deposited: 0n, refunded: 5000n, released: 0n, fee: 0n } },
    ]);
    expect(plan.events).toEqual([{ event: 'payment.partially_refunded' }]);
    state = step(state, { action: 'refund', milestoneId: 'ms_2', amountMinor: 5000n }).state;
    expect(milestone(state, 'ms_2')).toMatchObject({ status: 'in_custody', heldMinor: 45000n, refundedMinor: 5000n });

    // Build released: 65000 released in all, the fee floor(2999 × 65000 / 100000) = 1949, this entry 1350.
    state = step(state, { action: 'approve', milestoneId: 'ms_2' }).state;
    plan = planned(state, { action: 'release', milestoneId: 'ms_2' });
    expect(plan.movement).toEqual({ deposited: 0n, refunded: 0n, released: 45000n, fee: 1350n });
    state = step(state, { action: 'release', milestoneId: 'ms_2' }).state;
    expect(milestone(state, 'ms_2').feeCollectedMinor).toBe(1350n);

    // Launch disputed, then split: 100.00 back, 200.00 released, the fee 2549 in all, this entry 600.
    plan = planned(state, { action: 'dispute', milestoneId: 'ms_3' });
    expect(named(plan.events)).toEqual(['payment.milestone_disputed ms_3', 'payment.disputed']);
    state = step(state, { action: 'dispute', milestoneId: 'ms_3' }).state;
    expect(state.status).toBe('disputed');
    plan = planned(state, { action: 'resolve', resolution: 'split', amountMinor: 10000n, milestoneId: 'ms_3' });
    expect(plan.movement).toEqual({ deposited: 0n, refunded: 10000n, released: 20000n, fee: 600n });
    expect(named(plan.events)).toEqual(['payment.partially_refunded', 'payment.milestone_released ms_3', 'payment.released']);
    ({ state: next, entry } = step(state, { action: 'resolve', resolution: 'split', amountMinor: 10000n, milestoneId: 'ms_3' }));
    expect(entry).toMatchObject({ event: 'payment.released', milestoneId: 'ms_3', from: 'disputed', to: 'released' });
    expect(next).toMatchObject({
      status: 'released',
      heldMinor: 0n,
      releasedMinor: 85000n,
      refundedMinor: 15000n,
      feeCollectedMinor: 2549n,
    });
    expect(next.milestones.map((m) => [m.status, m.heldMinor, m.releasedMinor, m.refundedMinor, m.feeCollectedMinor])).toEqual([
      ['released', 0n, 20000n, 0n, 599n],
      ['released', 0n, 45000n, 5000n, 1350n],
      ['released', 0n, 20000n, 10000n, 600n],
    ]);

    // The split's events: the refunded part first, showing the payment before the release, then the milestone's release and the payment's.
    const events = emittedEvents(next, entry);
    expect(events.map((e) => [e.event, e.ordinal, e.milestoneId])).toEqual([
      ['payment.partially_refunded', -2, undefined],
      ['payment.milestone_released', -1, 'ms_3'],
      ['payment.released', 0, undefined],
    ]);
    expect(events[1].state).toBe(next);
    expect(events[2].state).toBe(next);
    expect(events[0].state).toEqual({
      ...next,
      status: 'disputed',
      heldMinor: 20000n,
      releasedMinor: 65000n,
      refundedMinor: 15000n,
      feeCollectedMinor: 1949n,
      milestones: [
        next.milestones[0],
        next.milestones[1],
        {
          ...next.milestones[2],
          status: 'disputed',
          heldMinor: 20000n,
          releasedMinor: 0n,
          refundedMinor: 10000n,
          feeCollectedMinor: 0n,
        },
      ],
    });
  });
});

describe('planTransition: a milestone’s own actions', () => {
  const deposited = () => run(worked(), { action: 'deposit' });

  it('a milestone the payment does not have: unknown_milestone (404), before any other check', () => {
    expect(planTransition(deposited(), { action: 'approve', milestoneId: 'ms_9' }, NOW)).toEqual({
      ok: false,
      reason: 'unknown_milestone',
      message: 'this payment has no milestone ms_9',
    });
    // Even with the payment's deposit deadline passed and a refusal the status would give.
    expect(planTransition(worked(), { action: 'release', milestoneId: 'ms_x' }, NOW + 30 * 24 * HOUR)).toMatchObject({
      reason: 'unknown_milestone',
    });
  });

  it('answers for the milestone’s status, and its refusal names the milestone’s status', () => {
    const state = run(deposited(), { action: 'approve', milestoneId: 'ms_1' }, { action: 'release', milestoneId: 'ms_1' });
    expect(planTransition(state, { action: 'approve', milestoneId: 'ms_1' }, NOW)).toEqual(
      refusedStep('released', [], 'cannot approve a milestone whose status is released'),
    );
    expect(planTransition(state, { action: 'release', milestoneId: 'ms_2' }, NOW)).toEqual(
      refusedStep('in_custody', ['approve', 'refund', 'dispute'], 'cannot release a milestone whose status is in_custody'),
    );
    expect(planTransition(state, { action: 'resolve', milestoneId: 'ms_2' }, NOW)).toEqual({
      ok: false,
      reason: 'resolution_required',
      status: 'in_custody',
      message: 'resolve needs a resolution: "release", "refund" or "split"',
      allowed: ['approve', 'refund', 'dispute'],
    });
    // The payment in custody: its approved milestone may be released, the others may not.
    const approved = run(deposited(), { action: 'approve', milestoneId: 'ms_2' });
    expect(planTransition(approved, { action: 'release', milestoneId: 'ms_2' }, NOW)).toMatchObject({ ok: true, to: 'in_custody' });
    expect(planTransition(approved, { action: 'release', milestoneId: 'ms_1' }, NOW)).toMatchObject({ ok: false, status: 'in_custody' });
  });

  it('acts on that milestone alone, even where others could take the same step', () => {
    const before = deposited();
    const plan = planned(before, { action: 'approve', milestoneId: 'ms_2' });
    expect(plan.milestoneId).toBe('ms_2');
    expect(plan.changes).toEqual([{ id: 'ms_2', from: 'in_custody', to: 'pending_release' }]);
    expect(plan.milestones[0]).toBe(before.milestones[0]);
    expect(plan.milestones[2]).toBe(before.milestones[2]);
    expect(plan.movement).toEqual({ deposited: 0n, refunded: 0n, released: 0n, fee: 0n });
  });

  it('a payment-only action names no milestone: refused before anything moves, the payment unchanged', () => {
    const thirds = () => stagedPayment([33300n, 33300n, 33400n]);
    const notPerMilestone = (action: string) => ({
      ok: false,
      reason: 'invalid_argument',
      message: `${action} is the payment's action: it names no milestone`,
    });
    // A deposit funds every milestone, a cancel cancels every one: neither is one milestone's.
    expect(planTransition(thirds(), { action: 'deposit', milestoneId: 'ms_1' }, NOW)).toEqual(notPerMilestone('deposit'));
    expect(planTransition(thirds(), { action: 'cancel', milestoneId: 'ms_2' }, NOW)).toEqual(notPerMilestone('cancel'));
    // Refused for that, not for the milestone: an unknown one too.
    expect(planTransition(thirds(), { action: 'deposit', milestoneId: 'ms_9' }, NOW)).toEqual(notPerMilestone('deposit'));
    const deadline = Date.parse(thirds().depositDeadline);
    expect(planTransition(thirds(), { action: 'deadline', milestoneId: 'ms_1' }, deadline, false)).toEqual(notPerMilestone('deadline'));
    // The auto-release is the one timer of a milestone's own, and the workflow's alone to name.
    const approved = run(stagedPayment([100n, 200n], { autoReleaseAfterSeconds: 60 }), { action: 'deposit' }, { action: 'approve' });
    expect(planTransition(approved, { action: 'auto_release', milestoneId: 'ms_2' }, NOW + 60_000, false)).toMatchObject({ ok: true });
    // Every client action of a milestone route may name one.
    for (const action of ['approve', 'release', 'refund', 'dispute', 'resolve'] as const) {
      expect(planTransition(approved, { action, milestoneId: 'ms_1' }, NOW)).not.toMatchObject({ reason: 'invalid_argument' });
    }
  });

  it('a timer’s action is the workflow’s: a client asking for one is refused, though the status allows it', () => {
    const approved = run(stagedPayment([100n, 200n], { autoReleaseAfterSeconds: 60 }), { action: 'deposit' }, { action: 'approve' });
    for (const req of [{ action: 'auto_release' }, { action: 'auto_release', milestoneId: 'ms_1' }] as const) {
      expect(planTransition(approved, req, NOW)).toEqual({
        ok: false,
        reason: 'invalid_argument',
        message: "auto_release is a timer's action: no client asks for it",
      });
    }
    expect(planTransition(stagedPayment([1n, 2n]), { action: 'deadline' }, NOW)).toMatchObject({ reason: 'invalid_argument' });
  });

  it('measures a refund against the milestone’s held amount, not the payment’s', () => {
    const state = run(deposited(), { action: 'refund', milestoneId: 'ms_2', amountMinor: 5000n });
    expect(planTransition(state, { action: 'refund', milestoneId: 'ms_2', amountMinor: 45001n }, NOW)).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'amount',
      message: 'amount must be at most the amount held, 450.00 USD',
    });
    // Its whole held amount is a full refund of the milestone: refunded, the payment keeps the others.
    const whole = planned(state, { action: 'refund', milestoneId: 'ms_2', amountMinor: 45000n });
    expect(whole.changes).toEqual([
      { id: 'ms_2', from: 'in_custody', to: 'refunded', movement: { deposited: 0n, refunded: 45000n, released: 0n, fee: 0n } },
    ]);
    expect(whole).toMatchObject({ to: 'in_custody', events: [{ event: 'payment.partially_refunded' }] });
    // Less than it holds is partial, though it is more than another milestone holds.
    expect(planned(state, { action: 'refund', milestoneId: 'ms_2', amountMinor: 44999n }).changes).toMatchObject([{ to: 'in_custody' }]);
    const disputed = run(state, { action: 'dispute', milestoneId: 'ms_3' });
    expect(planTransition(disputed, { action: 'resolve', resolution: 'split', amountMinor: 30000n, milestoneId: 'ms_3' }, NOW)).toEqual({
      ok: false,
      reason: 'invalid_amount',
      field: 'refund_amount',
      message: 'refund_amount must be less than the amount held, 300.00 USD',
    });
  });
});

describe('planTransition: a payment-level action acts on every milestone it applies to', () => {
  /** Four milestones: in custody, released, pending release, in custody (the payment in custody). */
  const mixed = () =>
    run(
      stagedPayment([100n, 200n, 300n, 400n], { autoReleaseAfterSeconds: 3600, platformFeeMinor: 100n }),
      { action: 'deposit' },
      { action: 'approve', milestoneId: 'ms_2' },
      { action: 'release', milestoneId: 'ms_2' },
      { action: 'approve', milestoneId: 'ms_3' },
    );

  it('approve: every milestone in custody', () => {
    const before = mixed();
    expect(before.status).toBe('in_custody');
    const plan = planned(before, { action: 'approve' });
    expect(plan.changes).toEqual([
      { id: 'ms_1', from: 'in_custody', to: 'pending_release' },
      { id: 'ms_4', from: 'in_custody', to: 'pending_release' },
    ]);
    expect(named(plan.events)).toEqual(['payment.milestone_approved ms_1', 'payment.milestone_approved ms_4', 'payment.approved']);
    expect(plan.to).toBe('pending_release');
    expect(plan.milestones[2]).toBe(before.milestones[2]);
    expect('milestoneId' in plan).toBe(false);
    const { entry } = applyTransition(before, plan, { actor: 'a', reason: null, at: iso(NOW) });
    expect('milestoneId' in entry).toBe(false);
    expect(entry.event).toBe('payment.approved');
  });

  it('dispute: every milestone holding money, its auto-release cleared', () => {
    const plan = planned(mixed(), { action: 'dispute' });
    expect(plan.changes.map((c) => [c.id, c.from, c.to])).toEqual([
      ['ms_1', 'in_custody', 'disputed'],
      ['ms_3', 'pending_release', 'disputed'],
      ['ms_4', 'in_custody', 'disputed'],
    ]);
    expect(plan.milestones.map((m) => m.releaseAt)).toEqual([null, null, null, null]);
    expect(named(plan.events)).toEqual([
      'payment.milestone_disputed ms_1',
      'payment.milestone_disputed ms_3',
      'payment.milestone_disputed ms_4',
      'payment.disputed',
    ]);
  });

  it('refund without an amount: everything held, each milestone’s own entry', () => {
    const before = run(mixed(), { action: 'dispute', milestoneId: 'ms_1' });
    expect(before.status).toBe('disputed');
    const plan = planned(before, { action: 'refund' });
    expect(plan.changes.map((c) => [c.id, c.from, c.to, c.movement?.refunded])).toEqual([
      ['ms_1', 'disputed', 'refunded', 100n],
      ['ms_3', 'pending_release', 'refunded', 300n],
      ['ms_4', 'in_custody', 'refunded', 400n],
    ]);
    expect(plan.movement).toEqual({ deposited: 0n, refunded: 800n, released: 0n, fee: 0n });
    // Something was released: the payment ends released, the refund announced as a partial one.
    expect(plan.to).toBe('released');
    expect(named(plan.events)).toEqual(['payment.partially_refunded', 'payment.released']);
  });

  it('refund of exactly what is held, with several milestones holding it: a full refund of each', () => {
    const plan = planned(mixed(), { action: 'refund', amountMinor: 800n });
    expect(plan.changes.map((c) => c.to)).toEqual(['refunded', 'refunded', 'refunded']);
    expect(plan.after).toEqual({ held: 0n, released: 200n, refunded: 800n, feeCollected: 20n });
  });

  it('resolve: every disputed milestone; a payment back in custody emits no status event', () => {
    const both = run(mixed(), { action: 'dispute', milestoneId: 'ms_1' }, { action: 'dispute', milestoneId: 'ms_4' });
    const release = planned(both, { action: 'resolve', resolution: 'release' });
    expect(release.changes.map((c) => [c.id, c.to])).toEqual([
      ['ms_1', 'released'],
      ['ms_4', 'released'],
    ]);
    expect(release.to).toBe('pending_release');
    expect(named(release.events)).toEqual(['payment.milestone_released ms_1', 'payment.milestone_released ms_4', 'payment.approved']);
    const refund = planned(both, { action: 'resolve', resolution: 'refund' });
    expect(refund.changes.map((c) => [c.id, c.to, c.movement?.refunded])).toEqual([
      ['ms_1', 'refunded', 100n],
      ['ms_4', 'refunded', 400n],
    ]);
    expect(refund.events).toEqual([{ event: 'payment.partially_refunded' }, { event: 'payment.approved' }]);

    const one = run(mixed(), { action: 'dispute', milestoneId: 'ms_1' });
    const back = planned(one, { action: 'resolve', resolution: 'release' });
    expect(back.to).toBe('in_custody');
    expect(back.events).toEqual([{ event: 'payment.milestone_released', milestoneId: 'ms_1' }]);
    const { entry } = applyTransition(one, back, { actor: 'a', reason: null, at: iso(NOW) });
    expect(entry.event).toBe('payment.milestone_released');
  });

  it('cancel and the deposit deadline: every milestone cancelled, the payment’s event alone', () => {
    const before = stagedPayment([1n, 2n, 3n]);
    const deadline = Date.parse(before.depositDeadline);
    for (const [action, now, client] of [
      ['cancel', NOW, true],
      ['deadline', deadline, false],
    ] as const) {
      const plan = planned(before, { action }, now, client);
      expect(plan.changes).toEqual(before.milestones.map((m) => ({ id: m.id, from: 'pending_deposit', to: 'cancelled' })));
      expect(plan.events).toEqual([{ event: 'payment.cancelled' }]);
      expect(plan.to).toBe('cancelled');
    }
  });

  it('release: every pending_release milestone, though others keep the payment in custody', () => {
    const before = mixed();
    expect(before.status).toBe('in_custody');
    const plan = planned(before, { action: 'release' });
    expect(plan.changes.map((c) => [c.id, c.from, c.to, c.movement?.released])).toEqual([['ms_3', 'pending_release', 'released', 300n]]);
    expect(plan.to).toBe('in_custody');
    expect(named(plan.events)).toEqual(['payment.milestone_released ms_3']);
  });

  it('approve and dispute: the milestones still holding money of a payment disputed by another', () => {
    const before = run(mixed(), { action: 'dispute', milestoneId: 'ms_1' });
    expect(before.status).toBe('disputed');
    expect(planned(before, { action: 'approve' }).changes).toEqual([{ id: 'ms_4', from: 'in_custody', to: 'pending_release' }]);
    expect(planned(before, { action: 'dispute' }).changes.map((c) => [c.id, c.from, c.to])).toEqual([
      ['ms_3', 'pending_release', 'disputed'],
      ['ms_4', 'in_custody', 'disputed'],
    ]);
    expect(planned(before, { action: 'release' }).changes.map((c) => [c.id, c.to])).toEqual([['ms_3', 'released']]);
  });

  it('refused only when no milestone may take it, naming the payment’s status; the next steps are those some milestone may take', () => {
    const before = run(mixed(), { action: 'dispute', milestoneId: 'ms_1' }, { action: 'approve', milestoneId: 'ms_4' });
    expect(before.milestones.map((m) => m.status)).toEqual(['disputed', 'released', 'pending_release', 'pending_release']);
    const allowed = ['release', 'refund', 'dispute', 'resolve'];
    for (const action of ['deposit', 'approve', 'cancel'] as const) {
      expect(planTransition(before, { action }, NOW)).toEqual({
        ok: false,
        reason: 'invalid_transition',
        status: 'disputed',
        message: `cannot ${action} a payment whose status is disputed`,
        allowed,
      });
    }
    expect(planTransition(before, { action: 'resolve' }, NOW)).toEqual({
      ok: false,
      reason: 'resolution_required',
      status: 'disputed',
      message: 'resolve needs a resolution: "release", "refund" or "split"',
      allowed,
    });
    // Nothing left to approve once every milestone holding money is pending release.
    const approved = run(mixed(), { action: 'approve' });
    expect(planTransition(approved, { action: 'approve' }, NOW)).toMatchObject({
      status: 'pending_release',
      allowed: ['release', 'refund', 'dispute'],
    });
  });

  it('a partial refund or a split is refused while two or more milestones hold money, allowed with one', () => {
    const state = run(worked(), { action: 'deposit' });
    expect(planTransition(state, { action: 'refund', amountMinor: 100n }, NOW)).toEqual({
      ok: false,
      reason: 'invalid_transition',
      status: 'in_custody',
      message:
        'cannot refund a payment whose status is in_custody with a partial refund while 3 milestones hold money: name the milestone (POST /api/v1/payments/pay_01JD0000000000000000000000/milestones/{milestone}/refund)',
      // Not the action refused: it is each milestone's now.
      allowed: ['approve', 'dispute'],
    });
    const two = run(state, { action: 'dispute' });
    expect(planTransition(two, { action: 'resolve', resolution: 'split', amountMinor: 100n }, NOW)).toEqual({
      ok: false,
      reason: 'invalid_transition',
      status: 'disputed',
      message:
        'cannot resolve a payment whose status is disputed with a split while 3 milestones hold money: name the milestone (POST /api/v1/payments/pay_01JD0000000000000000000000/milestones/{milestone}/resolve)',
      allowed: ['refund'],
    });

    // One milestone left holding money: the payment's partial refund and split are its.
    const one = run(
      state,
      { action: 'refund', milestoneId: 'ms_1' },
      { action: 'approve', milestoneId: 'ms_3' },
      { action: 'release', milestoneId: 'ms_3' },
    );
    const partial = planned(one, { action: 'refund', amountMinor: 100n });
    expect(partial.changes).toEqual([
      { id: 'ms_2', from: 'in_custody', to: 'in_custody', movement: { deposited: 0n, refunded: 100n, released: 0n, fee: 0n } },
    ]);
    const disputed = run(one, { action: 'dispute' });
    const split = planned(disputed, { action: 'resolve', resolution: 'split', amountMinor: 100n });
    expect(split.changes.map((c) => [c.id, c.from, c.to, c.movement])).toEqual([
      ['ms_2', 'disputed', 'released', { deposited: 0n, refunded: 100n, released: 49900n, fee: 1497n }],
    ]);
    // floor(2999 × (30000 + 49900) / 100000) = 2396: launch's release collected 899, this one the 1497 more.
    expect(split.after).toEqual({ held: 0n, released: 79900n, refunded: 20100n, feeCollected: 2396n });
  });

  it('a payment whose amounts disagree with its milestones’ is a bug: planning throws, naming the milestone', () => {
    const state = run(stagedPayment([500n, 500n]), { action: 'deposit' }, { action: 'refund', milestoneId: 'ms_2' });
    // The payment claims more than its one holding milestone holds.
    const broken = { ...state, heldMinor: 1000n };
    expect(() => planTransition(broken, { action: 'refund', amountMinor: 700n }, NOW)).toThrow(
      'ms_1: amount must be less than the amount held',
    );
  });
});

describe('the fee across milestones', () => {
  it('one payment-level release collects each milestone’s difference in turn: the payment’s fee stays floor(fee × released / amount)', () => {
    // 3 JPY in three parts of 1, a fee of 2: after 1 released floor(2/3) = 0, after 2 floor(4/3) = 1, after 3, 2.
    const state = run(
      stagedPayment([1n, 1n, 1n], { currency: 'JPY', amountExponent: 0, platformFeeMinor: 2n }),
      { action: 'deposit' },
      { action: 'approve' },
    );
    const plan = planned(state, { action: 'release' });
    expect(plan.changes.map((c) => [c.id, c.movement?.released, c.movement?.fee])).toEqual([
      ['ms_1', 1n, 0n],
      ['ms_2', 1n, 1n],
      ['ms_3', 1n, 1n],
    ]);
    expect(plan.movement).toEqual({ deposited: 0n, refunded: 0n, released: 3n, fee: 2n });
    expect(plan.milestones.map((m) => m.feeCollectedMinor)).toEqual([0n, 1n, 1n]);
    expect(plan.after.feeCollected).toBe(2n);
  });

  it('a release of part of the amount rounds the running total down, not each part', () => {
    // 30.00 in three parts of 10.00, a fee of 1.00: 33, then 66 in all (33 more), then 100 (34 more).
    const state = run(stagedPayment([1000n, 1000n, 1000n], { platformFeeMinor: 100n }), { action: 'deposit' }, { action: 'approve' });
    const plan = planned(state, { action: 'release' });
    expect(plan.milestones.map((m) => m.feeCollectedMinor)).toEqual([33n, 33n, 34n]);
    const first = planned(state, { action: 'release', milestoneId: 'ms_2' });
    expect(first.after.feeCollected).toBe(33n);
  });
});

describe('release_at: the auto-release of each approved milestone', () => {
  /** ms_1 one hour, ms_2 none, ms_3 two hours; all approved at NOW. */
  const approved = () => {
    const base = stagedPayment([100n, 200n, 300n], { autoReleaseAfterSeconds: 3600 });
    const withAutos = {
      ...base,
      milestones: base.milestones.map((m, i) => ({ ...m, autoReleaseAfterSeconds: [3600, null, 7200][i] })),
    };
    return run(withAutos, { action: 'deposit' }, { action: 'approve' });
  };

  it('is set on approval from the step’s time and the milestone’s own seconds', () => {
    const state = approved();
    expect(state.milestones.map((m) => m.releaseAt)).toEqual([iso(NOW + HOUR), null, iso(NOW + 2 * HOUR)]);
    expect(pendingTimers(state)).toEqual([
      { action: 'auto_release', dueAt: NOW + HOUR, milestoneId: 'ms_1' },
      { action: 'auto_release', dueAt: NOW + 2 * HOUR, milestoneId: 'ms_3' },
    ]);
    expect(pendingTimer(state)).toEqual({ action: 'auto_release', dueAt: NOW + HOUR, milestoneId: 'ms_1' });
    expect(nextDeadlineOf(state)).toEqual(new Date(NOW + HOUR));
    // Approved later, the same seconds count from then.
    const later = planned(run(stagedPayment([5n]), { action: 'deposit' }), { action: 'approve' }, NOW + 5000);
    expect(later.milestones[0].releaseAt).toBeNull();
    const timed = stagedPayment([5n], { autoReleaseAfterSeconds: 90 });
    expect(planned(run(timed, { action: 'deposit' }), { action: 'approve' }, NOW + 5000).milestones[0].releaseAt).toBe(iso(NOW + 95_000));
  });

  it('is kept by a partial refund (the milestone stays pending release), cleared on leaving pending_release', () => {
    const state = approved();
    const partial = planned(state, { action: 'refund', amountMinor: 10n, milestoneId: 'ms_3' }, NOW + 60_000);
    expect(partial.milestones[2]).toMatchObject({ status: 'pending_release', heldMinor: 290n, releaseAt: iso(NOW + 2 * HOUR) });
    for (const req of [
      { action: 'dispute', milestoneId: 'ms_3' },
      { action: 'release', milestoneId: 'ms_3' },
      { action: 'refund', milestoneId: 'ms_3' },
    ] as const) {
      expect(planned(state, req).milestones[2].releaseAt, req.action).toBeNull();
    }
    // Only the milestone that moved: ms_1's stays.
    expect(planned(state, { action: 'dispute', milestoneId: 'ms_3' }).milestones[0].releaseAt).toBe(iso(NOW + HOUR));
  });

  it('a milestone approved while the payment is in custody waits on its timer too', () => {
    const state = run(
      stagedPayment([100n, 200n], { autoReleaseAfterSeconds: 60 }),
      { action: 'deposit' },
      { action: 'approve', milestoneId: 'ms_2' },
    );
    expect(state.status).toBe('in_custody');
    expect(pendingTimer(state)).toEqual({ action: 'auto_release', dueAt: NOW + 60_000, milestoneId: 'ms_2' });
  });

  it('a due auto-release refuses its milestone’s actions and the payment’s, not another milestone’s', () => {
    const state = approved();
    const due = NOW + HOUR;
    expect(dueTimer(state, due - 1)).toBeUndefined();
    expect(dueTimer(state, due)).toBe('auto_release');
    expect(dueTimer(state, due, 'ms_1')).toBe('auto_release');
    expect(dueTimer(state, due, 'ms_3')).toBeUndefined();
    expect(dueTimer(state, NOW + 2 * HOUR, 'ms_3')).toBe('auto_release');
    expect(planTransition(state, { action: 'release', milestoneId: 'ms_1' }, due)).toEqual(
      refusedStep(
        'pending_release',
        ['release', 'refund', 'dispute'],
        'cannot release a milestone whose status is pending_release: its auto-release is due',
      ),
    );
    expect(planTransition(state, { action: 'dispute' }, due)).toEqual(
      refusedStep(
        'pending_release',
        ['release', 'refund', 'dispute'],
        'cannot dispute a payment whose status is pending_release: its auto-release is due',
      ),
    );
    expect(planned(state, { action: 'dispute', milestoneId: 'ms_3' }, due).changes).toEqual([
      { id: 'ms_3', from: 'pending_release', to: 'disputed' },
    ]);
    // The timer's own step releases its milestone alone.
    const timer = planned(state, { action: 'auto_release', milestoneId: 'ms_1' }, due, false);
    expect(timer).toMatchObject({
      to: 'pending_release',
      milestoneId: 'ms_1',
      events: [{ event: 'payment.milestone_released', milestoneId: 'ms_1' }],
    });
    expect(timer.changes.map((c) => c.id)).toEqual(['ms_1']);
  });

  it('the deposit deadline, once due, refuses a milestone’s action as the payment’s', () => {
    const state = stagedPayment([1n, 2n]);
    const deadline = Date.parse(state.depositDeadline);
    expect(dueTimer(state, deadline, 'ms_1')).toBe('deadline');
    expect(dueTimer(state, deadline - 1, 'ms_1')).toBeUndefined();
    expect(pendingTimers(state)).toEqual([{ action: 'deadline', dueAt: deadline }]);
  });
});

describe('applyTransition on a payment with milestones', () => {
  it('writes the plan’s milestones and their sums, and the milestone the step named', () => {
    const before = run(worked(), { action: 'deposit' }, { action: 'approve', milestoneId: 'ms_1' });
    const plan = planned(before, { action: 'release', milestoneId: 'ms_1' });
    const { state, entry } = applyTransition(before, plan, { actor: 'a', reason: 'done', at: iso(NOW) });
    expect(state).toEqual({
      ...before,
      status: 'in_custody',
      version: before.version + 1,
      updatedAt: iso(NOW),
      milestones: plan.milestones,
      heldMinor: 80000n,
      releasedMinor: 20000n,
      refundedMinor: 0n,
      feeCollectedMinor: 599n,
    });
    expect(entry).toStrictEqual({
      seq: before.version + 1,
      action: 'release',
      from: 'in_custody',
      to: 'in_custody',
      event: 'payment.milestone_released',
      actor: 'a',
      reason: 'done',
      at: iso(NOW),
      movement: { deposited: 0n, refunded: 0n, released: 20000n, fee: 599n },
      milestoneId: 'ms_1',
      changes: plan.changes,
    });
  });

  it('a step that changed no milestone records no changes', () => {
    const before = paymentState({ status: 'in_custody', heldMinor: 12550n });
    const step: PlannedStep = {
      action: 'approve',
      to: 'in_custody',
      movement: { deposited: 0n, refunded: 0n, released: 0n, fee: 0n },
      after: { held: 12550n, released: 0n, refunded: 0n, feeCollected: 0n },
      milestones: before.milestones,
      changes: [],
      events: [{ event: 'payment.approved' }],
    };
    const { entry } = applyTransition(before, step, { actor: 'a', reason: null, at: iso(NOW) });
    expect(entry).toStrictEqual({
      seq: 2,
      action: 'approve',
      from: 'in_custody',
      to: 'in_custody',
      event: 'payment.approved',
      actor: 'a',
      reason: null,
      at: iso(NOW),
    });
  });
});

describe('emittedEvents on a payment with milestones', () => {
  it('a split’s refunded part before its milestone event: it shows the payment between the refund and the release', () => {
    const before = run(
      stagedPayment([100n, 200n], { platformFeeMinor: 30n }),
      { action: 'deposit' },
      { action: 'dispute', milestoneId: 'ms_1' },
    );
    const { state, entry } = step(before, { action: 'resolve', resolution: 'split', amountMinor: 40n, milestoneId: 'ms_1' });
    expect(state.status).toBe('in_custody');
    const events = emittedEvents(state, entry);
    expect(events.map((e) => [e.event, e.milestoneId, e.ordinal])).toEqual([
      ['payment.partially_refunded', undefined, -1],
      ['payment.milestone_released', 'ms_1', 0],
    ]);
    expect(events[1].state).toBe(state);
    const between = events[0].state;
    expect(between.status).toBe('disputed');
    expect(amountsOf(between)).toEqual({ held: 260n, released: 0n, refunded: 40n, feeCollected: 0n });
    expect(between.milestones[0]).toMatchObject({
      status: 'disputed',
      heldMinor: 60n,
      releasedMinor: 0n,
      refundedMinor: 40n,
      feeCollectedMinor: 0n,
    });
    expect(between.milestones[1]).toBe(state.milestones[1]);
  });

  it('a refund of the rest after a release: payment.partially_refunded shows the payment as it ends (nothing was released with it)', () => {
    const before = run(
      stagedPayment([100n, 200n]),
      { action: 'deposit' },
      { action: 'approve', milestoneId: 'ms_1' },
      { action: 'release', milestoneId: 'ms_1' },
    );
    const { state, entry } = step(before, { action: 'refund' });
    const events = emittedEvents(state, entry);
    expect(events.map((e) => [e.event, e.ordinal])).toEqual([
      ['payment.partially_refunded', -1],
      ['payment.released', 0],
    ]);
    expect(events[0].state).toBe(state);
  });

  it('a payment-level split shows its one milestone between the refund and the release, the others as they are', () => {
    const before = run(
      stagedPayment([100n, 200n], { platformFeeMinor: 30n }),
      { action: 'deposit' },
      { action: 'refund', milestoneId: 'ms_1', amountMinor: 100n },
      { action: 'dispute' },
    );
    const { state, entry } = step(before, { action: 'resolve', resolution: 'split', amountMinor: 50n });
    const [part, released, own] = emittedEvents(state, entry);
    expect([part.event, released.event, own.event]).toEqual([
      'payment.partially_refunded',
      'payment.milestone_released',
      'payment.released',
    ]);
    // floor(30 × 150 / 300) = 15 collected by the release.
    expect(part.state).toEqual({
      ...state,
      status: 'disputed',
      heldMinor: 150n,
      releasedMinor: 0n,
      refundedMinor: 150n,
      feeCollectedMinor: 0n,
      milestones: [
        state.milestones[0],
        { ...state.milestones[1], status: 'disputed', heldMinor: 150n, releasedMinor: 0n, feeCollectedMinor: 0n },
      ],
    });
    expect(state.milestones[1]).toMatchObject({ releasedMinor: 150n, refundedMinor: 50n, feeCollectedMinor: 15n });
  });

  it('a creation emits payment.created; a step the rules give no event keeps its entry’s', () => {
    const state = stagedPayment([1n, 2n]);
    expect(emittedEvents(state, creationEntry(state, 'key_1'))).toEqual([{ event: 'payment.created', state, ordinal: 0 }]);
    const single = paymentState({ status: 'in_custody', heldMinor: 12550n });
    const entry: HistoryEntry = {
      seq: 3,
      action: 'approve',
      from: 'in_custody',
      to: 'in_custody',
      event: 'payment.approved',
      actor: 'a',
      reason: null,
      at: iso(NOW),
    };
    expect(emittedEvents(single, entry)).toEqual([{ event: 'payment.approved', state: single, ordinal: 0 }]);
  });

  it('an entry recorded before milestones: its refund from its movement', () => {
    const single = paymentState({ status: 'in_custody', heldMinor: 12000n, refundedMinor: 550n });
    const entry: HistoryEntry = {
      seq: 3,
      action: 'refund',
      from: 'in_custody',
      to: 'in_custody',
      event: 'payment.partially_refunded',
      actor: 'a',
      reason: null,
      at: iso(NOW),
      movement: { deposited: 0n, refunded: 550n, released: 0n, fee: 0n },
    };
    expect(emittedEvents(single, entry)).toEqual([{ event: 'payment.partially_refunded', state: single, ordinal: 0 }]);
  });

  it('a split recorded before milestones (no `changes`): its refunded part shows the payment between the two', () => {
    const state = paymentState({
      status: 'released',
      platformFeeMinor: 300n,
      releasedMinor: 10000n,
      refundedMinor: 2550n,
      feeCollectedMinor: 239n,
    });
    const entry: HistoryEntry = {
      seq: 4,
      action: 'resolve',
      from: 'disputed',
      to: 'released',
      event: 'payment.released',
      actor: 'a',
      reason: null,
      at: iso(NOW),
      movement: { deposited: 0n, refunded: 2000n, released: 10000n, fee: 239n },
    };
    const [part, own] = emittedEvents(state, entry);
    expect([part.event, part.ordinal, own.event, own.ordinal]).toEqual(['payment.partially_refunded', -1, 'payment.released', 0]);
    expect(part.state).toMatchObject({
      status: 'disputed',
      heldMinor: 10000n,
      releasedMinor: 0n,
      refundedMinor: 2550n,
      feeCollectedMinor: 0n,
    });
    expect(own.state).toBe(state);
  });

  it('a payment created without milestones never emits milestone events', () => {
    const before = run(paymentState({ autoReleaseAfterSeconds: 60 }), { action: 'deposit' });
    const { state, entry } = step(before, { action: 'approve', milestoneId: before.milestones[0].id });
    expect(entry.changes).toHaveLength(1);
    expect(emittedEvents(state, entry)).toEqual([{ event: 'payment.approved', state, ordinal: 0 }]);
  });
});

describe('personal data of milestones', () => {
  const staged = (state = stagedPayment([100n, 200n])) => {
    const p = paymentDetails(state);
    return { ...p, milestones: [p.milestones[0], { ...p.milestones[1], description: 'the build', recipientEmail: 'ops@example.com' }] };
  };

  it('the workflow carries each milestone without its reference, description and recipient', () => {
    const full = staged();
    expect(withoutPersonal(full).milestones).toStrictEqual(
      full.milestones.map(({ reference: _r, description: _d, recipientEmail: _e, ...m }) => m),
    );
  });

  it('the service keeps them by milestone id for a payment created with milestones, none otherwise', () => {
    const full = staged();
    expect(personalOf(full)).toStrictEqual({
      payerEmail: 'payer@example.com',
      recipientEmail: 'seller@example.com',
      description: 'a lamp',
      metadata: { order: '42' },
      milestones: [
        { id: 'ms_1', reference: 'part-1', description: null, recipientEmail: 'seller@example.com' },
        { id: 'ms_2', reference: 'part-2', description: 'the build', recipientEmail: 'ops@example.com' },
      ],
    });
    expect(personalOf(paymentDetails()).milestones).toBeNull();
    expect(personalOf({ ...full, milestones: null }).milestones).toBeNull();
  });

  it('withPersonal puts them back by id, whatever the order kept', () => {
    const full = staged();
    const kept = personalOf(full);
    expect(withPersonal(withoutPersonal(full), kept)).toEqual(full);
    expect(withPersonal(withoutPersonal(full), { ...kept, milestones: [...kept.milestones!].reverse() })).toEqual(full);
    // A milestone kept nothing for: none of its own, the payment's recipient.
    expect(withPersonal(withoutPersonal(full), { ...kept, milestones: [kept.milestones![1]] }).milestones[0]).toEqual({
      ...full.milestones[0],
      reference: null,
      description: null,
      recipientEmail: 'seller@example.com',
    });
  });

  it('a payment created without milestones: its one milestone’s recipient is the payment’s', () => {
    const single = paymentDetails(paymentState(), { recipientEmail: 'studio@example.com' });
    const restored = withPersonal(withoutPersonal(single), personalOf(single));
    expect(restored.milestones[0]).toMatchObject({ reference: null, description: null, recipientEmail: 'studio@example.com' });
  });

  it('an erasure redacts each milestone’s fields that held something', () => {
    const erased = redactedPersonal(personalOf(staged()));
    expect(erased.milestones).toStrictEqual([
      { id: 'ms_1', reference: REDACTED, description: null, recipientEmail: REDACTED },
      { id: 'ms_2', reference: REDACTED, description: REDACTED, recipientEmail: REDACTED },
    ]);
    expect(redactedPersonal(personalOf(paymentDetails())).milestones).toBeUndefined();
  });

  it('a redacted view erases the milestones’ fields and keeps their amounts', () => {
    const view = paymentView(staged(run(stagedPayment([100n, 200n]), { action: 'deposit' })));
    const redacted = redactView(view);
    expect(redacted.milestones).toEqual([
      { ...view.milestones[0], reference: REDACTED, recipient_email: REDACTED },
      { ...view.milestones[1], reference: REDACTED, description: REDACTED, recipient_email: REDACTED },
    ]);
    expect(redacted.milestones[0].description).toBeNull();
    // A view without milestones (or a field it lacks) gets none.
    const bare = { payer_email: 'a@x.com', recipient_email: 'b@x.com', description: null, metadata: {} };
    expect('milestones' in redactView(bare)).toBe(false);
    const sparse = redactView({ ...bare, milestones: [{ id: 'ms_1', recipient_email: 'c@x.com' }] });
    expect(sparse.milestones).toEqual([{ id: 'ms_1', recipient_email: REDACTED }]);
    expect((sparse.milestones[0] as Record<string, unknown>).reference).toBeUndefined();
    expect((sparse.milestones[0] as Record<string, unknown>).description).toBeUndefined();
  });
});

describe('any payment, any steps (property)', () => {
  const CURRENCIES = [
    { currency: 'JPY', amountExponent: 0 },
    { currency: 'USD', amountExponent: 2 },
    { currency: 'BHD', amountExponent: 3 },
  ] as const;
  /** The requests a step may make: every action, each resolution its own. */
  const REQUESTS = {
    deposit: { action: 'deposit' },
    approve: { action: 'approve' },
    release: { action: 'release' },
    refund: { action: 'refund' },
    dispute: { action: 'dispute' },
    resolve_release: { action: 'resolve', resolution: 'release' },
    resolve_refund: { action: 'resolve', resolution: 'refund' },
    resolve_split: { action: 'resolve', resolution: 'split' },
    cancel: { action: 'cancel' },
    deadline: { action: 'deadline' },
    auto_release: { action: 'auto_release' },
  } as const satisfies Record<string, { action: TransitionAction; resolution?: Resolution }>;
  type Kind = keyof typeof REQUESTS;
  /** Of these a client may name a milestone (and the workflow, of its auto-release). */
  const BY_MILESTONE: readonly TransitionAction[] = ['approve', 'release', 'refund', 'dispute', 'resolve', 'auto_release'];

  const part = fc.record({
    amount: fc.bigInt({ min: 1n, max: 10n ** 9n }),
    auto: fc.option(fc.integer({ min: 1, max: 3 * 86_400 }), { nil: null }),
  });
  const payment = fc.record({
    money: fc.constantFrom(...CURRENCIES),
    // Mostly a few milestones, so that the steps meet; sometimes up to the 50 allowed.
    parts: fc.oneof(
      { weight: 3, arbitrary: fc.array(part, { minLength: 1, maxLength: 4 }) },
      { weight: 1, arbitrary: fc.array(part, { minLength: 1, maxLength: 50 }) },
    ),
    feeSeed: fc.bigInt({ min: 0n, max: 2n ** 64n }),
    staged: fc.boolean(),
  });
  const action = fc.record({
    kind: fc.constantFrom(...(Object.keys(REQUESTS) as Kind[])),
    // The payment's own action; or a milestone's: one the action applies to (if any), or any (one past the last: none of the payment's).
    target: fc.oneof(
      { weight: 4, arbitrary: fc.constant({ of: 'payment' as const, pick: 0 }) },
      { weight: 5, arbitrary: fc.nat().map((pick) => ({ of: 'fitting' as const, pick })) },
      { weight: 1, arbitrary: fc.nat().map((pick) => ({ of: 'any' as const, pick })) },
    ),
    // The amount of a refund or a split, in thousandths of what its target holds.
    permille: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined, freq: 3 }),
    // Mostly none: the clock moves on now and then, far enough for a timer to fall due.
    advanceSeconds: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 * 86_400 }) }),
  });
  type Action = typeof action extends fc.Arbitrary<infer T> ? T : never;

  const sum = (ms: readonly MilestoneState[], k: 'heldMinor' | 'releasedMinor' | 'refundedMinor' | 'feeCollectedMinor') =>
    ms.reduce((s, m) => s + m[k], 0n);

  /** The request a generated step makes of this state. */
  function requestOf(state: PaymentState, a: Action): TransitionRequestRule {
    const { action: act, ...rest } = REQUESTS[a.kind] as { action: TransitionAction; resolution?: Resolution };
    let target: MilestoneState | undefined;
    let milestoneId: string | undefined;
    if (a.target.of !== 'payment' && BY_MILESTONE.includes(act)) {
      const fitting = state.milestones.filter((m) => checkTransition(m.status, act, rest.resolution).ok);
      const from = a.target.of === 'fitting' && fitting.length > 0 ? fitting : [...state.milestones, undefined];
      target = from[a.target.pick % from.length];
      milestoneId = target ? target.id : 'ms_none';
    }
    const held = target ? target.heldMinor : state.heldMinor;
    const amounts = act === 'refund' || rest.resolution === 'split';
    return {
      action: act,
      ...rest,
      ...(amounts && a.permille !== undefined ? { amountMinor: (held * BigInt(a.permille)) / 1000n } : {}),
      ...(milestoneId === undefined ? {} : { milestoneId }),
    };
  }

  it('keeps every milestone’s and the payment’s money, status and events consistent', () => {
    fc.assert(
      fc.property(
        payment,
        fc.array(action, { maxLength: 30, size: 'max' }),
        fc.nat(9),
        ({ money, parts, feeSeed, staged }, actions, skipDeposit) => {
          const base = stagedPayment(
            parts.map((p) => p.amount),
            { ...money, staged: staged || parts.length > 1, depositDeadline: iso(NOW + 5 * 86_400_000) },
          );
          const amount = base.amountMinor;
          const fee = feeSeed % (amount + 1n);
          let state: PaymentState = {
            ...base,
            platformFeeMinor: fee,
            milestones: base.milestones.map((m, i) => ({ ...m, autoReleaseAfterSeconds: parts[i].auto })),
          };
          let now = NOW;
          // Mostly deposited first: a payment cancelled at once tells little.
          const deposit: Action = { kind: 'deposit', target: { of: 'payment', pick: 0 }, permille: undefined, advanceSeconds: 0 };
          const steps = skipDeposit === 0 ? actions : [deposit, ...actions];

          for (const a of steps) {
            now += a.advanceSeconds * 1000;
            const req = requestOf(state, a);
            const client = req.action !== 'deadline' && req.action !== 'auto_release';
            const snapshot = structuredClone(state);
            const plan = planTransition(state, req, now, client);
            // The payment's own action (no amount, no timer due) is allowed exactly when some milestone's status allows it.
            const split = req.action === 'resolve' && req.resolution === 'split';
            if (client && req.milestoneId === undefined && req.amountMinor === undefined && !split && !dueTimer(state, now)) {
              const some = state.milestones.some((m) => checkTransition(m.status, req.action, req.resolution).ok);
              expect(plan.ok, `${req.action} of ${state.milestones.map((m) => m.status).join(', ')}`).toBe(some);
              // With one milestone, the payment's status answers as it always has.
              if (state.milestones.length === 1) expect(some).toBe(checkTransition(state.status, req.action, req.resolution).ok);
            }
            if (!plan.ok) {
              // A refusal changes nothing.
              expect(state).toEqual(snapshot);
              // Its next steps: what the milestone named may do, or what some milestone may (never the action a payment-level partial refund or split refused).
              if (plan.reason === 'invalid_transition' || plan.reason === 'resolution_required') {
                const named = state.milestones.filter((m) => req.milestoneId === undefined || m.id === req.milestoneId);
                const next = (req.milestoneId === undefined ? CLIENT_ACTIONS : MILESTONE_ACTIONS).filter((a) =>
                  named.some((m) => checkTransition(m.status, a, a === 'resolve' ? 'release' : undefined).ok),
                );
                expect(plan.allowed).toEqual(plan.message.includes('milestones hold money') ? next.filter((a) => a !== req.action) : next);
              }
              if (req.milestoneId === 'ms_none') expect(plan.reason).toBe('unknown_milestone');
              continue;
            }
            const { state: next, entry } = applyTransition(state, plan, { actor: 'p', reason: null, at: iso(now) });

            // Each milestone: its whole amount, held, released or refunded, from the deposit on.
            for (const m of next.milestones) {
              const total = m.heldMinor + m.releasedMinor + m.refundedMinor;
              expect(total).toBe(m.status === 'pending_deposit' || m.status === 'cancelled' ? 0n : m.amountMinor);
            }
            // The payment's amounts are its milestones' sums; its fee the rule's, exactly.
            expect([next.heldMinor, next.releasedMinor, next.refundedMinor, next.feeCollectedMinor]).toEqual(
              (['heldMinor', 'releasedMinor', 'refundedMinor', 'feeCollectedMinor'] as const).map((k) => sum(next.milestones, k)),
            );
            expect(next.feeCollectedMinor).toBe((fee * next.releasedMinor) / amount);
            // The status follows the milestones; with one milestone it is the milestone's.
            expect(next.status).toBe(paymentStatusOf(next.milestones));
            if (next.milestones.length === 1) expect(next.status).toBe(next.milestones[0].status);
            // The movement is the change in the amounts.
            const delta = (k: 'heldMinor' | 'releasedMinor' | 'refundedMinor' | 'feeCollectedMinor') => next[k] - state[k];
            expect(plan.movement).toEqual({
              deposited: delta('heldMinor') + delta('releasedMinor') + delta('refundedMinor'),
              refunded: delta('refundedMinor'),
              released: delta('releasedMinor'),
              fee: delta('feeCollectedMinor'),
            });
            // The step's last event is its entry's; milestone events only on a payment created with milestones.
            expect(plan.events.length).toBeGreaterThan(0);
            expect(entry.event).toBe(plan.events.at(-1)!.event);
            if (!next.staged) expect(plan.events.every((e) => e.milestoneId === undefined)).toBe(true);
            // Each milestone that changed is in the entry's changes; one that did not is untouched.
            const changed = new Set(plan.changes.map((c) => c.id));
            next.milestones.forEach((m, i) => {
              const was = state.milestones[i];
              if (!changed.has(m.id)) expect(m).toBe(was);
              // release_at: set on approval, kept while pending release, cleared on leaving it.
              const releaseAt =
                m.status !== 'pending_release' || m.autoReleaseAfterSeconds === null
                  ? null
                  : was.status === 'pending_release'
                    ? was.releaseAt
                    : iso(now + m.autoReleaseAfterSeconds * 1000);
              expect(m.releaseAt).toBe(releaseAt);
            });
            expect(next.version).toBe(state.version + 1);
            state = next;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
