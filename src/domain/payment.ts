/**
 * The payment rules, as data. The workflow, the API, the OpenAPI document and the tests all read
 * this module; there is no second copy of the state machine anywhere.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */

export const PAYMENT_STATUSES = [
  'pending_deposit',
  'in_custody',
  'pending_release',
  'released',
  'cancelled',
  'refunded',
  'disputed',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const TERMINAL_STATUSES: readonly PaymentStatus[] = ['released', 'cancelled', 'refunded'];

export const PAYMENT_EVENTS = [
  'payment.created',
  'payment.deposited',
  'payment.approved',
  'payment.released',
  'payment.cancelled',
  'payment.refunded',
  'payment.disputed',
  'payment.test',
] as const;
export type PaymentEvent = (typeof PAYMENT_EVENTS)[number];

/** Actions a client may request over the API (create is the workflow start, not a transition). */
export const CLIENT_ACTIONS = ['deposit', 'approve', 'release', 'cancel', 'refund', 'dispute', 'resolve'] as const;
export type ClientAction = (typeof CLIENT_ACTIONS)[number];
/** Actions the workflow takes by itself, on its durable timers. */
export type TimerAction = 'deadline' | 'auto_release';
export type TransitionAction = ClientAction | TimerAction;

export type Resolution = 'release' | 'refund';

export interface Transition {
  action: TransitionAction;
  /** For resolve, which outcome this row describes. */
  resolution?: Resolution;
  from: readonly PaymentStatus[];
  to: PaymentStatus;
  event: PaymentEvent;
}

/** The state machine of PRODUCT.md part 2. Creation emits payment.created into pending_deposit. */
export const TRANSITIONS: readonly Transition[] = [
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

export const CREATED_EVENT: PaymentEvent = 'payment.created';
export const INITIAL_STATUS: PaymentStatus = 'pending_deposit';

export function isTerminal(status: PaymentStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export type TransitionCheck =
  { ok: true; transition: Transition } | { ok: false; reason: 'invalid_transition' | 'resolution_required'; message: string };

/** Decide whether `action` may run from `status`; the single place that answers that question. */
export function checkTransition(status: PaymentStatus, action: TransitionAction, resolution?: Resolution): TransitionCheck {
  if (action === 'resolve' && !resolution) {
    return { ok: false, reason: 'resolution_required', message: 'resolve needs a resolution: "release" or "refund"' };
  }
  const transition = TRANSITIONS.find((t) => t.action === action && (t.resolution === undefined || t.resolution === resolution));
  if (!transition || !transition.from.includes(status)) {
    return {
      ok: false,
      reason: 'invalid_transition',
      message: `cannot ${action} a payment whose status is ${status}`,
    };
  }
  return { ok: true, transition };
}

/** A durable timer a payment waits on in its status: the transition it makes and when it is due (ms). */
export interface PendingTimer {
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
): { type: 'LivePayment' | 'InvalidArgument'; message: string } | undefined {
  if (livemode) return { type: 'LivePayment', message: 'test clocks are for test-mode payments only' };
  if (!Number.isInteger(seconds) || seconds < 1) return { type: 'InvalidArgument', message: 'seconds must be a positive integer' };
  return undefined;
}

/** A client's transition: the table's answer, unless a timer is already due. */
export function checkClientTransition(
  state: PaymentState,
  action: ClientAction,
  resolution: Resolution | undefined,
  now: number,
  pendingReleaseSince: number | null,
): TransitionCheck {
  const due = dueTimer(state, now, pendingReleaseSince);
  if (due) {
    const why = due === 'deadline' ? 'its deposit deadline has passed' : 'its auto-release is due';
    return { ok: false, reason: 'invalid_transition', message: `cannot ${action} a payment whose status is ${state.status}: ${why}` };
  }
  return checkTransition(state.status, action, resolution);
}

/** The statuses an action may start from (for documentation and error details). */
export function allowedFrom(action: TransitionAction): PaymentStatus[] {
  return [...new Set(TRANSITIONS.filter((t) => t.action === action).flatMap((t) => t.from))];
}

/** One entry of a payment's history. */
export interface HistoryEntry {
  seq: number;
  action: 'create' | TransitionAction;
  from: PaymentStatus | null;
  to: PaymentStatus;
  event: PaymentEvent;
  actor: string;
  reason: string | null;
  at: string;
}

/** The payment as the workflow holds it: money in integer minor units. */
export interface PaymentState {
  id: string;
  accountId: string;
  livemode: boolean;
  amountMinor: string; // bigint as decimal string: survives JSON and the workflow sandbox
  /**
   * The currency's minor units when the amount was taken, kept with it so that an update of the
   * ISO table never rescales a stored amount. Absent in payments created before it was kept.
   */
  amountExponent?: number;
  currency: string;
  status: PaymentStatus;
  payerEmail: string;
  recipientEmail: string;
  description: string | null;
  metadata: Record<string, string>;
  depositDeadline: string;
  autoReleaseAfterSeconds: number | null;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** Apply an allowed transition to a state; pure, returns the new state and its history entry. */
export function applyTransition(
  state: PaymentState,
  transition: Transition,
  meta: { actor: string; reason: string | null; at: string },
): { state: PaymentState; entry: HistoryEntry } {
  const next: PaymentState = { ...state, status: transition.to, updatedAt: meta.at, version: state.version + 1 };
  const entry: HistoryEntry = {
    seq: next.version,
    action: transition.action,
    from: state.status,
    to: transition.to,
    event: transition.event,
    actor: meta.actor,
    reason: meta.reason,
    at: meta.at,
  };
  return { state: next, entry };
}

export function creationEntry(state: PaymentState, actor: string): HistoryEntry {
  return {
    seq: state.version,
    action: 'create',
    from: null,
    to: state.status,
    event: CREATED_EVENT,
    actor,
    reason: null,
    at: state.createdAt,
  };
}
