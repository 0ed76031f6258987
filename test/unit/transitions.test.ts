/**
 * The transition table, row by row: every action (and resolution) from every status, allowed or
 * refused with its exact message, and what applying a transition writes.
 */
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ACTIONS,
  PAYMENT_EVENTS,
  PAYMENT_STATUSES,
  RESOLUTIONS,
  TERMINAL_STATUSES,
  type PaymentState,
  type TransitionAction,
} from '../../src/payments/paymentTypes.rules';
import {
  CREATED_EVENT,
  INITIAL_STATUS,
  TRANSITIONS,
  type Transition,
  allowedActions,
  allowedFrom,
  checkTransition,
  creationEntry,
  isTerminal,
} from '../../src/payments/payment.rules';
import { applyTransition } from '../../src/payments/paymentPlan.rules';
import { planTransition } from '../../src/payments/paymentPlan.rules';
import { paymentState } from './fixtures';

const STATUSES = ['pending_deposit', 'in_custody', 'pending_release', 'released', 'cancelled', 'refunded', 'disputed'] as const;

/** docs/concepts.md's and docs/money.md's table, written out again by hand: a change to src/payments/payment.rules.ts's copy disagrees with it. */
const TABLE: Transition[] = [
  { action: 'deposit', from: ['pending_deposit'], to: 'in_custody', event: 'payment.deposited', money: 'deposit' },
  { action: 'approve', from: ['in_custody'], to: 'pending_release', event: 'payment.approved', money: 'none' },
  { action: 'release', from: ['pending_release'], to: 'released', event: 'payment.released', money: 'release_rest' },
  { action: 'cancel', from: ['pending_deposit'], to: 'cancelled', event: 'payment.cancelled', money: 'none' },
  {
    action: 'refund',
    from: ['in_custody', 'pending_release', 'disputed'],
    to: 'refunded',
    event: 'payment.refunded',
    money: 'refund_rest',
  },
  { action: 'refund', partial: true, from: ['in_custody'], to: 'in_custody', event: 'payment.partially_refunded', money: 'refund_part' },
  {
    action: 'refund',
    partial: true,
    from: ['pending_release'],
    to: 'pending_release',
    event: 'payment.partially_refunded',
    money: 'refund_part',
  },
  { action: 'refund', partial: true, from: ['disputed'], to: 'disputed', event: 'payment.partially_refunded', money: 'refund_part' },
  { action: 'dispute', from: ['in_custody', 'pending_release'], to: 'disputed', event: 'payment.disputed', money: 'none' },
  { action: 'resolve', resolution: 'release', from: ['disputed'], to: 'released', event: 'payment.released', money: 'release_rest' },
  { action: 'resolve', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded', money: 'refund_rest' },
  { action: 'resolve', resolution: 'split', from: ['disputed'], to: 'released', event: 'payment.released', money: 'split' },
  { action: 'deadline', from: ['pending_deposit'], to: 'cancelled', event: 'payment.cancelled', money: 'none' },
  { action: 'auto_release', from: ['pending_release'], to: 'released', event: 'payment.released', money: 'release_rest' },
  { action: 'dispute_accept', resolution: 'release', from: ['disputed'], to: 'released', event: 'payment.released', money: 'release_rest' },
  { action: 'dispute_accept', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded', money: 'refund_rest' },
  { action: 'dispute_accept', resolution: 'split', from: ['disputed'], to: 'released', event: 'payment.released', money: 'split' },
  {
    action: 'dispute_default',
    resolution: 'release',
    from: ['disputed'],
    to: 'released',
    event: 'payment.released',
    money: 'release_rest',
  },
  { action: 'dispute_default', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded', money: 'refund_rest' },
  { action: 'dispute_withdraw', from: ['disputed'], to: 'in_custody', event: 'payment.dispute_updated', money: 'none' },
  { action: 'dispute_withdraw', from: ['disputed'], to: 'pending_release', event: 'payment.dispute_updated', money: 'none' },
];

describe('the lists the API, the OpenAPI document and the webhooks read', () => {
  it('names every status, event and client action, in order', () => {
    expect(PAYMENT_STATUSES).toEqual(STATUSES);
    expect(PAYMENT_EVENTS).toEqual([
      'payment.created',
      'payment.deposited',
      'payment.approved',
      'payment.released',
      'payment.cancelled',
      'payment.refunded',
      'payment.partially_refunded',
      'payment.partially_funded',
      'payment.disputed',
      'payment.milestone_approved',
      'payment.milestone_released',
      'payment.milestone_disputed',
      'payment.dispute_updated',
      'payment.test',
    ]);
    expect(CLIENT_ACTIONS).toEqual(['deposit', 'approve', 'release', 'cancel', 'refund', 'dispute', 'resolve']);
    expect(RESOLUTIONS).toEqual(['release', 'refund', 'split']);
    expect(CREATED_EVENT).toBe('payment.created');
    expect(INITIAL_STATUS).toBe('pending_deposit');
  });

  it('has exactly three terminal statuses', () => {
    expect(TERMINAL_STATUSES).toEqual(['released', 'cancelled', 'refunded']);
    expect(STATUSES.filter(isTerminal)).toEqual(['released', 'cancelled', 'refunded']);
  });

  it('is the table of the docs, row for row', () => {
    expect(TRANSITIONS).toEqual(TABLE);
  });
});

describe('checkTransition: every action from every status', () => {
  // Each request the table answers (action, resolution, partial), from each status: the row the
  // hand-written table gives, or a refusal naming the action and the status.
  const requests = [
    ...new Map(
      TABLE.map((r) => [`${r.action}/${r.resolution}/${r.partial}`, { action: r.action, resolution: r.resolution, partial: r.partial }]),
    ).values(),
  ];
  const cases = requests.flatMap((req) =>
    STATUSES.map((status) => ({
      ...req,
      status,
      row: TABLE.find(
        (r) => r.action === req.action && r.resolution === req.resolution && r.partial === req.partial && r.from.includes(status),
      ),
    })),
  );
  it.each(cases)('$action $resolution (partial: $partial) from $status', ({ action, resolution, partial, status, row }) => {
    const check = checkTransition(status, action, resolution, partial ?? false);
    if (row) {
      expect(check).toEqual({ ok: true, transition: row });
    } else {
      expect(check).toEqual({
        ok: false,
        reason: 'invalid_transition',
        message: `cannot ${action} a payment whose status is ${status}`,
      });
    }
  });

  it('allows exactly the pairs of the table: 23 of 126', () => {
    expect(cases).toHaveLength(18 * 7);
    expect(cases.filter((c) => c.row)).toHaveLength(23);
  });

  it('refuses resolve without a resolution from any status, before looking at the status', () => {
    for (const status of STATUSES) {
      expect(checkTransition(status, 'resolve')).toEqual({
        ok: false,
        reason: 'resolution_required',
        message: 'resolve needs a resolution: "release", "refund" or "split"',
      });
    }
  });

  it('ignores a resolution sent with an action that has none', () => {
    expect(checkTransition('pending_release', 'release', 'refund')).toEqual({ ok: true, transition: TABLE[2] });
    expect(checkTransition('in_custody', 'refund', 'release')).toEqual({ ok: true, transition: TABLE[4] });
    expect(checkTransition('in_custody', 'refund', 'split', true)).toEqual({ ok: true, transition: TABLE[5] });
    expect(checkTransition('pending_deposit', 'deposit', 'refund')).toEqual({ ok: true, transition: TABLE[0] });
  });

  it('picks the resolve row of the resolution asked for', () => {
    expect(checkTransition('disputed', 'resolve', 'release')).toMatchObject({ ok: true, transition: { to: 'released' } });
    expect(checkTransition('disputed', 'resolve', 'refund')).toMatchObject({ ok: true, transition: { to: 'refunded' } });
    expect(checkTransition('disputed', 'resolve', 'split')).toMatchObject({ ok: true, transition: { to: 'released', money: 'split' } });
  });

  it('a partial refund is its own row: never the full refund, and only a refund can be partial', () => {
    expect(checkTransition('in_custody', 'refund')).toEqual({ ok: true, transition: TABLE[4] });
    expect(checkTransition('in_custody', 'refund', undefined, true)).toEqual({ ok: true, transition: TABLE[5] });
    expect(checkTransition('disputed', 'refund', undefined, true)).toEqual({ ok: true, transition: TABLE[7] });
    for (const action of ['deposit', 'release', 'approve'] as const) {
      const from = action === 'deposit' ? 'pending_deposit' : action === 'release' ? 'pending_release' : 'in_custody';
      expect(checkTransition(from, action, undefined, true)).toEqual({
        ok: false,
        reason: 'invalid_transition',
        message: `cannot ${action} a payment whose status is ${from}`,
      });
    }
  });

  it('refuses an action the table does not know', () => {
    expect(checkTransition('in_custody', 'nope' as TransitionAction)).toEqual({
      ok: false,
      reason: 'invalid_transition',
      message: 'cannot nope a payment whose status is in_custody',
    });
  });
});

describe('allowedFrom', () => {
  it('lists the statuses each action starts from, once each', () => {
    expect(allowedFrom('deposit')).toEqual(['pending_deposit']);
    expect(allowedFrom('approve')).toEqual(['in_custody']);
    expect(allowedFrom('release')).toEqual(['pending_release']);
    expect(allowedFrom('cancel')).toEqual(['pending_deposit']);
    expect(allowedFrom('refund')).toEqual(['in_custody', 'pending_release', 'disputed']);
    expect(allowedFrom('dispute')).toEqual(['in_custody', 'pending_release']);
    expect(allowedFrom('resolve')).toEqual(['disputed']);
    expect(allowedFrom('deadline')).toEqual(['pending_deposit']);
    expect(allowedFrom('auto_release')).toEqual(['pending_release']);
  });
});

describe('applyTransition and creationEntry', () => {
  const meta = { actor: 'key_1', reason: 'buyer asked', at: '2026-11-24T08:00:00.000Z' };
  const NOW = Date.parse('2026-11-24T08:00:00.000Z');
  const planned = (state: PaymentState, req: Parameters<typeof planTransition>[1], client = true) => {
    const plan = planTransition(state, req, NOW, client);
    if (!plan.ok) throw new Error(plan.message);
    return plan;
  };

  it('moves the status, bumps the version by one, writes the amounts and the history entry', () => {
    const before = paymentState({ status: 'in_custody', version: 2, heldMinor: 12550n });
    const snapshot = structuredClone(before);
    const { state, entry } = applyTransition(before, planned(before, { action: 'approve' }), meta);
    const milestone = snapshot.milestones[0];
    expect(state).toEqual({
      ...snapshot,
      status: 'pending_release',
      updatedAt: meta.at,
      version: 3,
      platformFeeMinor: 0n,
      heldMinor: 12550n,
      releasedMinor: 0n,
      refundedMinor: 0n,
      feeCollectedMinor: 0n,
      milestones: [{ ...milestone, status: 'pending_release' }],
    });
    expect(entry).toStrictEqual({
      seq: 3,
      action: 'approve',
      from: 'in_custody',
      to: 'pending_release',
      event: 'payment.approved',
      actor: 'key_1',
      reason: 'buyer asked',
      at: meta.at,
      changes: [{ id: milestone.id, from: 'in_custody', to: 'pending_release' }],
    });
    expect(before).toEqual(snapshot); // the old state is untouched
  });

  it('records the money a step moved in its entry, as decimal text, in all and per milestone', () => {
    const before = paymentState({ status: 'pending_release', platformFeeMinor: 300n, heldMinor: 12550n });
    const { state, entry } = applyTransition(before, planned(before, { action: 'release' }), meta);
    expect(entry.movement).toEqual({ deposited: 0n, refunded: 0n, released: 12550n, fee: 300n });
    expect(entry.changes).toEqual([{ id: before.milestones[0].id, from: 'pending_release', to: 'released', movement: entry.movement }]);
    expect(state).toMatchObject({
      status: 'released',
      platformFeeMinor: 300n,
      heldMinor: 0n,
      releasedMinor: 12550n,
      feeCollectedMinor: 300n,
    });
  });

  it('keeps a null reason null', () => {
    const before = paymentState();
    const { entry } = applyTransition(before, planned(before, { action: 'deadline' }, false), { ...meta, actor: 'system', reason: null });
    expect(entry).toMatchObject({ seq: 2, action: 'deadline', actor: 'system', reason: null, event: 'payment.cancelled' });
  });

  it('writes the creation entry from the new payment', () => {
    expect(creationEntry(paymentState(), 'key_9')).toEqual({
      seq: 1,
      action: 'create',
      from: null,
      to: 'pending_deposit',
      event: 'payment.created',
      actor: 'key_9',
      reason: null,
      at: '2026-11-23T12:00:00.000Z',
    });
  });
});

describe('allowedActions: the next steps a refusal names', () => {
  it('lists, per status, the client actions the table allows from it, in CLIENT_ACTIONS order', () => {
    expect(Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, allowedActions(s)]))).toEqual({
      pending_deposit: ['deposit', 'cancel'],
      in_custody: ['approve', 'refund', 'dispute'],
      pending_release: ['release', 'refund', 'dispute'],
      released: [],
      cancelled: [],
      refunded: [],
      disputed: ['refund', 'resolve'],
    });
  });

  it('of one milestone: its own actions alone (a deposit or a cancel is the payment’s)', () => {
    expect(Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, allowedActions(s, 'milestone')]))).toEqual({
      pending_deposit: [],
      in_custody: ['approve', 'refund', 'dispute'],
      pending_release: ['release', 'refund', 'dispute'],
      released: [],
      cancelled: [],
      refunded: [],
      disputed: ['refund', 'resolve'],
    });
  });
});
