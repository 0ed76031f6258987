/**
 * The transition table, row by row: every action (and resolution) from every status, allowed or
 * refused with its exact message, and what applying a transition writes.
 */
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ACTIONS,
  CREATED_EVENT,
  INITIAL_STATUS,
  PAYMENT_EVENTS,
  PAYMENT_STATUSES,
  TERMINAL_STATUSES,
  TRANSITIONS,
  type Transition,
  type TransitionAction,
  allowedFrom,
  applyTransition,
  checkTransition,
  creationEntry,
  isTerminal,
} from '../../src/domain/payment';
import { paymentState } from './fixtures';

const STATUSES = ['pending_deposit', 'in_custody', 'pending_release', 'released', 'cancelled', 'refunded', 'disputed'] as const;

/** PRODUCT.md part 2's table, written out again by hand: a change to src/domain/payment.ts's copy disagrees with it. */
const TABLE: Transition[] = [
  { action: 'deposit', from: ['pending_deposit'], to: 'in_custody', event: 'payment.deposited' },
  { action: 'approve', from: ['in_custody'], to: 'pending_release', event: 'payment.approved' },
  { action: 'release', from: ['pending_release'], to: 'released', event: 'payment.released' },
  { action: 'cancel', from: ['pending_deposit'], to: 'cancelled', event: 'payment.cancelled' },
  { action: 'refund', from: ['in_custody', 'pending_release', 'disputed'], to: 'refunded', event: 'payment.refunded' },
  { action: 'dispute', from: ['in_custody', 'pending_release'], to: 'disputed', event: 'payment.disputed' },
  { action: 'resolve', resolution: 'release', from: ['disputed'], to: 'released', event: 'payment.released' },
  { action: 'resolve', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded' },
  { action: 'deadline', from: ['pending_deposit'], to: 'cancelled', event: 'payment.cancelled' },
  { action: 'auto_release', from: ['pending_release'], to: 'released', event: 'payment.released' },
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
      'payment.disputed',
      'payment.test',
    ]);
    expect(CLIENT_ACTIONS).toEqual(['deposit', 'approve', 'release', 'cancel', 'refund', 'dispute', 'resolve']);
    expect(CREATED_EVENT).toBe('payment.created');
    expect(INITIAL_STATUS).toBe('pending_deposit');
  });

  it('has exactly three terminal statuses', () => {
    expect(TERMINAL_STATUSES).toEqual(['released', 'cancelled', 'refunded']);
    expect(STATUSES.filter(isTerminal)).toEqual(['released', 'cancelled', 'refunded']);
  });

  it('is the table of PRODUCT.md part 2, row for row', () => {
    expect(TRANSITIONS).toEqual(TABLE);
  });
});

describe('checkTransition: every action from every status', () => {
  const cases = TABLE.flatMap((row) => STATUSES.map((status) => ({ status, row, allowed: row.from.includes(status) })));
  it.each(cases)('$row.action $row.resolution from $status: allowed $allowed', ({ status, row, allowed }) => {
    const check = checkTransition(status, row.action, row.resolution);
    if (allowed) {
      expect(check).toEqual({ ok: true, transition: row });
    } else {
      expect(check).toEqual({
        ok: false,
        reason: 'invalid_transition',
        message: `cannot ${row.action} a payment whose status is ${status}`,
      });
    }
  });

  it('refuses resolve without a resolution from any status, before looking at the status', () => {
    for (const status of STATUSES) {
      expect(checkTransition(status, 'resolve')).toEqual({
        ok: false,
        reason: 'resolution_required',
        message: 'resolve needs a resolution: "release" or "refund"',
      });
    }
  });

  it('ignores a resolution sent with an action that has none', () => {
    expect(checkTransition('pending_release', 'release', 'refund')).toEqual({ ok: true, transition: TABLE[2] });
    expect(checkTransition('in_custody', 'refund', 'release')).toEqual({ ok: true, transition: TABLE[4] });
    expect(checkTransition('pending_deposit', 'deposit', 'refund')).toEqual({ ok: true, transition: TABLE[0] });
  });

  it('picks the resolve row of the resolution asked for', () => {
    expect(checkTransition('disputed', 'resolve', 'release')).toMatchObject({ ok: true, transition: { to: 'released' } });
    expect(checkTransition('disputed', 'resolve', 'refund')).toMatchObject({ ok: true, transition: { to: 'refunded' } });
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

  it('moves the status, bumps the version by one and writes the history entry', () => {
    const before = paymentState({ status: 'in_custody', version: 2 });
    const snapshot = structuredClone(before);
    const { state, entry } = applyTransition(before, TABLE[1], meta);
    expect(state).toEqual({ ...snapshot, status: 'pending_release', updatedAt: meta.at, version: 3 });
    expect(entry).toEqual({
      seq: 3,
      action: 'approve',
      from: 'in_custody',
      to: 'pending_release',
      event: 'payment.approved',
      actor: 'key_1',
      reason: 'buyer asked',
      at: meta.at,
    });
    expect(before).toEqual(snapshot); // the old state is untouched
  });

  it('keeps a null reason null', () => {
    const { entry } = applyTransition(paymentState(), TABLE[8], { ...meta, actor: 'system', reason: null });
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
