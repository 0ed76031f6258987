/**
 * A payment's durable timers (the deposit deadline, the auto-release) and its test clock: pure
 * functions of its state, one rule for the workflow's timers and the `NextDeadline` search attribute.
 */
import { INVALID_ARGUMENT, LIVE_PAYMENT } from './failures';
import type { HistoryEntry, PaymentState, TimerAction } from './payment';

/** A durable timer a payment waits on in its status: the transition it makes and when it is due (ms). */
interface PendingTimer {
  action: TimerAction;
  dueAt: number;
}

/**
 * The timer the payment waits on in its current status, if any: the deposit deadline in
 * pending_deposit, the auto-release in pending_release when it has one.
 * `pendingReleaseSince`: when the payment entered pending_release (ms), if it did.
 */
export function pendingTimer(state: PaymentState, pendingReleaseSince: number | null): PendingTimer | undefined {
  if (state.status === 'pending_deposit') return { action: 'deadline', dueAt: Date.parse(state.depositDeadline) };
  if (state.status === 'pending_release' && state.autoReleaseAfterSeconds != null && pendingReleaseSince != null) {
    return { action: 'auto_release', dueAt: pendingReleaseSince + state.autoReleaseAfterSeconds * 1000 };
  }
  return undefined;
}

/**
 * The timer transition already due at `now`, if any. A message that arrives after a timer was due
 * (say, a deposit after the deadline while workers were down) must not win over the timer.
 */
export function dueTimer(state: PaymentState, now: number, pendingReleaseSince: number | null): TimerAction | undefined {
  const timer = pendingTimer(state, pendingReleaseSince);
  return timer && now >= timer.dueAt ? timer.action : undefined;
}

/** How long the workflow sleeps for a timer: never less than 1 ms, so one already due still fires (at once). */
export function timerDelayMs(timer: PendingTimer, now: number): number {
  return Math.max(timer.dueAt - now, 1);
}

/** The history entry's reason for a timer's transition. */
export const TIMER_REASONS: Readonly<Record<TimerAction, string>> = {
  deadline: 'deposit deadline passed',
  auto_release: 'auto-release delay elapsed',
};

/** The timer's name in the Temporal UI (metadata, not a command). */
export const TIMER_SUMMARIES: Readonly<Record<TimerAction, string>> = {
  deadline: 'deposit deadline',
  auto_release: 'auto-release',
};

/** Why a test clock may not move a payment's time, if it may not: test mode only, whole seconds from 1 up. */
export function clockAdvanceRefusal(
  livemode: boolean,
  seconds: number,
): { type: typeof LIVE_PAYMENT | typeof INVALID_ARGUMENT; message: string } | undefined {
  if (livemode) return { type: LIVE_PAYMENT, message: 'test clocks are for test-mode payments only' };
  if (!Number.isInteger(seconds) || seconds < 1) return { type: INVALID_ARGUMENT, message: 'seconds must be a positive integer' };
  return undefined;
}

/**
 * When a payment entered pending_release (ms), from its history: the entry that moved it there
 * last; null unless it is pending_release now. A repaired run re-arms auto-release from this.
 */
export function pendingReleaseSinceOf(state: PaymentState, history: readonly HistoryEntry[]): number | null {
  if (state.status !== 'pending_release') return null;
  const entered = [...history].reverse().find((e) => e.to === 'pending_release');
  return entered ? Date.parse(entered.at) : null;
}

/** The pending deposit deadline or auto-release time (the `NextDeadline` search attribute): `pendingTimer`'s; null when none is pending. */
export function nextDeadlineOf(state: PaymentState, pendingReleaseSince: number | null): Date | null {
  const timer = pendingTimer(state, pendingReleaseSince);
  return timer ? new Date(timer.dueAt) : null;
}
