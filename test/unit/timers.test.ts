/**
 * The deposit deadline and the auto-release, one millisecond either side: which timer a payment
 * waits on, when it is due, and a client's transition refused once a timer is due.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TIMER_REASONS,
  TIMER_SUMMARIES,
  clockAdvanceRefusal,
  dueTimer,
  pendingTimer,
  timerDelayMs,
} from '../../src/payments/paymentTimers.rules';
import { planTransition } from '../../src/payments/paymentPlan.rules';
import { paymentState, refusedStep, releasingAt } from './fixtures';

const DEADLINE = Date.parse('2026-11-30T12:00:00.000Z');
const SINCE = Date.parse('2026-11-25T09:00:00.000Z');
const AUTO = 3600; // seconds
const AUTO_DUE = SINCE + AUTO * 1000;

const pendingDeposit = paymentState({ status: 'pending_deposit', depositDeadline: '2026-11-30T12:00:00.000Z' });
const pendingRelease = releasingAt(paymentState({ status: 'pending_release', heldMinor: 12550n, autoReleaseAfterSeconds: AUTO }), AUTO_DUE);
const MILESTONE = pendingRelease.milestones[0].id;

describe('pendingTimer', () => {
  it('is the deposit deadline in pending_deposit', () => {
    expect(pendingTimer(pendingDeposit)).toEqual({ action: 'deadline', dueAt: DEADLINE });
  });

  it('is the auto-release of the milestone pending release, at its release_at', () => {
    expect(pendingTimer(pendingRelease)).toEqual({ action: 'auto_release', dueAt: AUTO_DUE, milestoneId: MILESTONE });
  });

  it('is none in pending_release without an auto-release time', () => {
    expect(pendingTimer(paymentState({ status: 'pending_release', autoReleaseAfterSeconds: null }))).toBeUndefined();
  });

  it('is none in every other status, whatever the payment holds', () => {
    for (const status of ['in_custody', 'disputed', 'released', 'cancelled', 'refunded'] as const) {
      expect(pendingTimer(releasingAt(paymentState({ status, autoReleaseAfterSeconds: AUTO }), AUTO_DUE))).toBeUndefined();
    }
  });

  it('is the earliest of several milestones’ auto-releases', () => {
    const [a] = pendingRelease.milestones;
    const b = { ...a, id: 'ms_b', releaseAt: new Date(AUTO_DUE - 5).toISOString() };
    const c = { ...a, id: 'ms_c', releaseAt: new Date(AUTO_DUE - 5).toISOString() };
    const staged = { ...pendingRelease, staged: true, milestones: [a, b, c] };
    expect(pendingTimer(staged)).toEqual({ action: 'auto_release', dueAt: AUTO_DUE - 5, milestoneId: 'ms_b' });
    expect(dueTimer(staged, AUTO_DUE - 5, 'ms_c')).toBe('auto_release');
    expect(dueTimer(staged, AUTO_DUE - 5, 'ms_01')).toBeUndefined();
  });
});

describe('dueTimer, one millisecond either side', () => {
  it('the deposit deadline is due from its very millisecond on', () => {
    expect(dueTimer(pendingDeposit, DEADLINE - 1)).toBeUndefined();
    expect(dueTimer(pendingDeposit, DEADLINE)).toBe('deadline');
    expect(dueTimer(pendingDeposit, DEADLINE + 1)).toBe('deadline');
  });

  it('the auto-release is due from its very millisecond on', () => {
    expect(dueTimer(pendingRelease, AUTO_DUE - 1)).toBeUndefined();
    expect(dueTimer(pendingRelease, AUTO_DUE)).toBe('auto_release');
    expect(dueTimer(pendingRelease, AUTO_DUE + 1)).toBe('auto_release');
  });

  it('nothing is due in a status without a timer, however late', () => {
    expect(dueTimer(paymentState({ status: 'in_custody' }), DEADLINE + 1)).toBeUndefined();
    expect(dueTimer(paymentState({ status: 'pending_release', autoReleaseAfterSeconds: null }), AUTO_DUE + 1)).toBeUndefined();
  });

  it('agrees with the timer for any deadline and any time (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: -1e9, max: 1e9 }), (deadline, offset) => {
        const state = paymentState({ depositDeadline: new Date(deadline).toISOString() });
        expect(dueTimer(state, deadline + offset)).toBe(offset >= 0 ? 'deadline' : undefined);
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
    expect(TIMER_REASONS).toEqual({
      deadline: 'deposit deadline passed',
      auto_release: 'auto-release delay elapsed',
      dispute_default: 'respondent did not respond by respond_by',
    });
    expect(TIMER_SUMMARIES).toEqual({ deadline: 'deposit deadline', auto_release: 'auto-release', dispute_default: 'dispute respond_by' });
  });
});

describe('planTransition: a due timer wins over a client’s message', () => {
  it('a deposit 1 ms before the deadline is allowed, at the deadline refused', () => {
    expect(planTransition(pendingDeposit, { action: 'deposit' }, DEADLINE - 1)).toMatchObject({ ok: true, to: 'in_custody' });
    for (const now of [DEADLINE, DEADLINE + 1]) {
      expect(planTransition(pendingDeposit, { action: 'deposit' }, now)).toEqual(
        refusedStep(
          'pending_deposit',
          ['deposit', 'cancel'],
          'cannot deposit a payment whose status is pending_deposit: its deposit deadline has passed',
        ),
      );
    }
  });

  it('a release 1 ms before the auto-release is allowed, at it refused (the milestone’s own action too)', () => {
    expect(planTransition(pendingRelease, { action: 'release' }, AUTO_DUE - 1)).toMatchObject({ ok: true, to: 'released' });
    for (const now of [AUTO_DUE, AUTO_DUE + 1]) {
      expect(planTransition(pendingRelease, { action: 'dispute' }, now)).toEqual(
        refusedStep(
          'pending_release',
          ['release', 'refund', 'dispute'],
          'cannot dispute a payment whose status is pending_release: its auto-release is due',
        ),
      );
      expect(planTransition(pendingRelease, { action: 'dispute', milestoneId: MILESTONE }, now)).toMatchObject({
        ok: false,
        message: 'cannot dispute a milestone whose status is pending_release: its auto-release is due',
      });
    }
  });

  it('a timer’s own step is not refused by itself', () => {
    expect(planTransition(pendingRelease, { action: 'auto_release' }, AUTO_DUE + 1, false)).toMatchObject({ ok: true, to: 'released' });
  });

  it('with no timer due, it is the table’s answer, resolution included', () => {
    const disputed = paymentState({ status: 'disputed', heldMinor: 12550n });
    expect(planTransition(disputed, { action: 'resolve', resolution: 'refund' }, DEADLINE + 1)).toMatchObject({ ok: true, to: 'refunded' });
    expect(planTransition(disputed, { action: 'resolve' }, DEADLINE + 1)).toMatchObject({ ok: false, reason: 'resolution_required' });
    expect(planTransition(disputed, { action: 'approve' }, DEADLINE + 1)).toEqual(
      refusedStep('disputed', ['refund', 'resolve'], 'cannot approve a payment whose status is disputed'),
    );
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
