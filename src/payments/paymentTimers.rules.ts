/**
 * A payment's durable timers (the deposit deadline, the auto-release) and its test clock: pure
 * functions of its state, one rule for the workflow's timers and the `NextDeadline` search attribute.
 */
import { INVALID_ARGUMENT, LIVE_PAYMENT } from '../platform/failures.rules';
import type { PaymentState, TimerAction } from './paymentTypes.rules';

/**
 * A durable timer a payment waits on: the transition it makes, when it is due (ms), for an
 * auto-release its milestone, and for a respondent's deadline its dispute (and the milestone whose
 * route opened it).
 */
export interface PendingTimer {
  action: TimerAction;
  dueAt: number;
  milestoneId?: string;
  disputeId?: string;
}

/**
 * The timers the payment waits on now: the deposit deadline in pending_deposit, and the
 * auto-release of each milestone pending release with one (its `releaseAt`, on the payment's clock).
 */
export function pendingTimers(state: PaymentState): PendingTimer[] {
  if (state.status === 'pending_deposit') return [{ action: 'deadline', dueAt: Date.parse(state.depositDeadline) }];
  const timers: PendingTimer[] = state.milestones
    .filter((m) => m.status === 'pending_release' && m.releaseAt !== null)
    .map((m) => ({ action: 'auto_release' as const, dueAt: Date.parse(m.releaseAt!), milestoneId: m.id }));
  // Each dispute still awaiting its respondent (docs/concepts.md, "Disputes"); a platform's has no deadline.
  for (const d of state.disputes ?? []) {
    if (d.status !== 'awaiting_response' || d.respondBy === null) continue;
    timers.push({
      action: 'dispute_default',
      dueAt: Date.parse(d.respondBy),
      disputeId: d.id,
      ...(d.milestoneId === null ? {} : { milestoneId: d.milestoneId }),
    });
  }
  return timers;
}

/** The earliest pending timer (the first milestone's on a tie): the next to fire, and `NextDeadline`. */
export function pendingTimer(state: PaymentState): PendingTimer | undefined {
  return pendingTimers(state).reduce<PendingTimer | undefined>((first, t) => (!first || t.dueAt < first.dueAt ? t : first), undefined);
}

/**
 * The timer transition already due at `now`, if any (of `milestoneId` alone, and the deadline, when
 * given). A message that arrives after a timer was due (say, a deposit after the deadline while
 * workers were down) must not win over the timer.
 */
export function dueTimer(state: PaymentState, now: number, milestoneId?: string): TimerAction | undefined {
  return pendingTimers(state).find(
    (t) => now >= t.dueAt && (milestoneId === undefined || t.milestoneId === undefined || t.milestoneId === milestoneId),
  )?.action;
}

/** How long the workflow sleeps for a timer: never less than 1 ms, so one already due still fires (at once). */
export function timerDelayMs(timer: PendingTimer, now: number): number {
  return Math.max(timer.dueAt - now, 1);
}

/** The history entry's reason for a timer's transition. */
export const TIMER_REASONS: Readonly<Record<TimerAction, string>> = {
  deadline: 'deposit deadline passed',
  auto_release: 'auto-release delay elapsed',
  dispute_default: 'respondent did not respond by respond_by',
};

/** The timer's name in the Temporal UI (metadata, not a command). */
export const TIMER_SUMMARIES: Readonly<Record<TimerAction, string>> = {
  deadline: 'deposit deadline',
  auto_release: 'auto-release',
  dispute_default: 'dispute respond_by',
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

/** The earliest pending deposit deadline or auto-release (the `NextDeadline` search attribute): `pendingTimer`'s; null when none is pending. */
export function nextDeadlineOf(state: PaymentState): Date | null {
  const timer = pendingTimer(state);
  return timer ? new Date(timer.dueAt) : null;
}
