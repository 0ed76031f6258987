/**
 * The deposit deadline and the auto-release, one millisecond either side: which timer a payment
 * waits on, when it is due, and a client's transition refused once a timer is due.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TIMER_REASONS,
  TIMER_SUMMARIES,
  checkClientTransition,
  clockAdvanceRefusal,
  dueTimer,
  pendingTimer,
  timerDelayMs,
} from '../../src/domain/payment';
import { paymentState } from './fixtures';

const DEADLINE = Date.parse('2026-11-30T12:00:00.000Z');
const SINCE = Date.parse('2026-11-25T09:00:00.000Z');
const AUTO = 3600; // seconds
const AUTO_DUE = SINCE + AUTO * 1000;

const pendingDeposit = paymentState({ status: 'pending_deposit', depositDeadline: '2026-11-30T12:00:00.000Z' });
const pendingRelease = paymentState({ status: 'pending_release', autoReleaseAfterSeconds: AUTO });

describe('pendingTimer', () => {
  it('is the deposit deadline in pending_deposit', () => {
    expect(pendingTimer(pendingDeposit, null)).toEqual({ action: 'deadline', dueAt: DEADLINE });
    expect(pendingTimer(pendingDeposit, SINCE)).toEqual({ action: 'deadline', dueAt: DEADLINE });
  });

  it('is the auto-release in pending_release, counted from entering it', () => {
    expect(pendingTimer(pendingRelease, SINCE)).toEqual({ action: 'auto_release', dueAt: AUTO_DUE });
  });

  it('is none in pending_release without an auto-release, or before the payment entered it', () => {
    expect(pendingTimer(paymentState({ status: 'pending_release', autoReleaseAfterSeconds: null }), SINCE)).toBeUndefined();
    expect(pendingTimer(pendingRelease, null)).toBeUndefined();
  });

  it('is none in every other status, whatever the payment holds', () => {
    for (const status of ['in_custody', 'disputed', 'released', 'cancelled', 'refunded'] as const) {
      expect(pendingTimer(paymentState({ status, autoReleaseAfterSeconds: AUTO }), SINCE)).toBeUndefined();
    }
  });
});

describe('dueTimer, one millisecond either side', () => {
  it('the deposit deadline is due from its very millisecond on', () => {
    expect(dueTimer(pendingDeposit, DEADLINE - 1, null)).toBeUndefined();
    expect(dueTimer(pendingDeposit, DEADLINE, null)).toBe('deadline');
    expect(dueTimer(pendingDeposit, DEADLINE + 1, null)).toBe('deadline');
  });

  it('the auto-release is due from its very millisecond on', () => {
    expect(dueTimer(pendingRelease, AUTO_DUE - 1, SINCE)).toBeUndefined();
    expect(dueTimer(pendingRelease, AUTO_DUE, SINCE)).toBe('auto_release');
    expect(dueTimer(pendingRelease, AUTO_DUE + 1, SINCE)).toBe('auto_release');
  });

  it('nothing is due in a status without a timer, however late', () => {
    expect(dueTimer(paymentState({ status: 'in_custody' }), DEADLINE + 1, SINCE)).toBeUndefined();
    expect(dueTimer(paymentState({ status: 'pending_release', autoReleaseAfterSeconds: null }), AUTO_DUE + 1, SINCE)).toBeUndefined();
  });

  it('agrees with the timer for any deadline and any time (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: -1e9, max: 1e9 }), (deadline, offset) => {
        const state = paymentState({ depositDeadline: new Date(deadline).toISOString() });
        expect(dueTimer(state, deadline + offset, null)).toBe(offset >= 0 ? 'deadline' : undefined);
      }),
    );
  });
});

describe('timerDelayMs', () => {
  it('sleeps until the timer is due, and at least 1 ms (a timer already due fires at once)', () => {
    const timer = { action: 'deadline' as const, dueAt: DEADLINE };
    expect(timerDelayMs(timer, DEADLINE - 5000)).toBe(5000);
    expect(timerDelayMs(timer, DEADLINE - 2)).toBe(2);
    expect(timerDelayMs(timer, DEADLINE - 1)).toBe(1);
    expect(timerDelayMs(timer, DEADLINE)).toBe(1);
    expect(timerDelayMs(timer, DEADLINE + 60_000)).toBe(1);
  });
});

describe('a timer transition names itself', () => {
  it('in the history entry and in the Temporal UI', () => {
    expect(TIMER_REASONS).toEqual({ deadline: 'deposit deadline passed', auto_release: 'auto-release delay elapsed' });
    expect(TIMER_SUMMARIES).toEqual({ deadline: 'deposit deadline', auto_release: 'auto-release' });
  });
});

describe('checkClientTransition: a due timer wins over a message', () => {
  it('a deposit 1 ms before the deadline is allowed, at the deadline refused', () => {
    expect(checkClientTransition(pendingDeposit, 'deposit', undefined, DEADLINE - 1, null)).toMatchObject({
      ok: true,
      transition: { to: 'in_custody' },
    });
    for (const now of [DEADLINE, DEADLINE + 1]) {
      expect(checkClientTransition(pendingDeposit, 'deposit', undefined, now, null)).toEqual({
        ok: false,
        reason: 'invalid_transition',
        message: 'cannot deposit a payment whose status is pending_deposit: its deposit deadline has passed',
      });
    }
  });

  it('a release 1 ms before the auto-release is allowed, at it refused', () => {
    expect(checkClientTransition(pendingRelease, 'release', undefined, AUTO_DUE - 1, SINCE)).toMatchObject({
      ok: true,
      transition: { to: 'released' },
    });
    for (const now of [AUTO_DUE, AUTO_DUE + 1]) {
      expect(checkClientTransition(pendingRelease, 'dispute', undefined, now, SINCE)).toEqual({
        ok: false,
        reason: 'invalid_transition',
        message: 'cannot dispute a payment whose status is pending_release: its auto-release is due',
      });
    }
  });

  it('with no timer due, it is the table’s answer, resolution included', () => {
    const disputed = paymentState({ status: 'disputed' });
    expect(checkClientTransition(disputed, 'resolve', 'refund', DEADLINE + 1, SINCE)).toMatchObject({
      ok: true,
      transition: { to: 'refunded' },
    });
    expect(checkClientTransition(disputed, 'resolve', undefined, DEADLINE + 1, SINCE)).toMatchObject({
      ok: false,
      reason: 'resolution_required',
    });
    expect(checkClientTransition(disputed, 'approve', undefined, DEADLINE + 1, SINCE)).toEqual({
      ok: false,
      reason: 'invalid_transition',
      message: 'cannot approve a payment whose status is disputed',
    });
  });
});

describe('clockAdvanceRefusal (test clocks)', () => {
  it('refuses a live payment, whatever the seconds', () => {
    for (const seconds of [1, 0, 1.5]) {
      expect(clockAdvanceRefusal(true, seconds)).toEqual({ type: 'LivePayment', message: 'test clocks are for test-mode payments only' });
    }
  });

  it('takes whole seconds from 1 up in test mode', () => {
    expect(clockAdvanceRefusal(false, 1)).toBeUndefined();
    expect(clockAdvanceRefusal(false, 86_400)).toBeUndefined();
    for (const seconds of [0, -1, 0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(clockAdvanceRefusal(false, seconds), String(seconds)).toEqual({
        type: 'InvalidArgument',
        message: 'seconds must be a positive integer',
      });
    }
  });
});
