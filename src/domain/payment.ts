/**
 * The payment rules, as data. The workflow, the API, the OpenAPI document and the tests all read
 * this module; there is no second copy of the state machine anywhere.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */

import { type Amounts, type MoneyEffect, type Movement, ZERO_AMOUNTS, isEmptyMovement, move } from './ledger';
import { formatMinor, storedExponent } from './amountText';

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
  'payment.partially_refunded',
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

export const RESOLUTIONS = ['release', 'refund', 'split'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export interface Transition {
  action: TransitionAction;
  /** For resolve, which outcome this row describes. */
  resolution?: Resolution;
  /** A refund of part of what is held: the status stays (docs/money.md). */
  partial?: true;
  from: readonly PaymentStatus[];
  to: PaymentStatus;
  event: PaymentEvent;
  /** What the transition does to the money held (src/domain/ledger.ts). */
  money: MoneyEffect;
}

/** The state machine of docs/concepts.md and docs/money.md. Creation emits payment.created into pending_deposit. */
export const TRANSITIONS: readonly Transition[] = [
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
  ...(['in_custody', 'pending_release', 'disputed'] as const).map((status): Transition => ({
    action: 'refund',
    partial: true,
    from: [status],
    to: status,
    event: 'payment.partially_refunded',
    money: 'refund_part',
  })),
  { action: 'dispute', from: ['in_custody', 'pending_release'], to: 'disputed', event: 'payment.disputed', money: 'none' },
  { action: 'resolve', resolution: 'release', from: ['disputed'], to: 'released', event: 'payment.released', money: 'release_rest' },
  { action: 'resolve', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded', money: 'refund_rest' },
  { action: 'resolve', resolution: 'split', from: ['disputed'], to: 'released', event: 'payment.released', money: 'split' },
  { action: 'deadline', from: ['pending_deposit'], to: 'cancelled', event: 'payment.cancelled', money: 'none' },
  { action: 'auto_release', from: ['pending_release'], to: 'released', event: 'payment.released', money: 'release_rest' },
];

export const CREATED_EVENT: PaymentEvent = 'payment.created';
export const INITIAL_STATUS: PaymentStatus = 'pending_deposit';

export function isTerminal(status: PaymentStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export type TransitionCheck =
  { ok: true; transition: Transition } | { ok: false; reason: 'invalid_transition' | 'resolution_required'; message: string };

/**
 * Decide whether `action` may run from `status`; the single place that answers that question.
 * `partial`: a refund of part of what is held (the status stays).
 */
export function checkTransition(
  status: PaymentStatus,
  action: TransitionAction,
  resolution?: Resolution,
  partial = false,
): TransitionCheck {
  if (action === 'resolve' && !resolution) {
    return { ok: false, reason: 'resolution_required', message: 'resolve needs a resolution: "release", "refund" or "split"' };
  }
  const transition = TRANSITIONS.find(
    (t) =>
      t.action === action &&
      (t.resolution === undefined || t.resolution === resolution) &&
      (t.partial ?? false) === partial &&
      t.from.includes(status),
  );
  if (!transition) {
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

/** A client's transition: the table's answer, unless a timer is already due. Status only: see `planTransition` for the money. */
export function checkClientTransition(
  state: PaymentState,
  action: ClientAction,
  resolution: Resolution | undefined,
  now: number,
  pendingReleaseSince: number | null,
  partial = false,
): TransitionCheck {
  const due = dueTimer(state, now, pendingReleaseSince);
  if (due) {
    const why = due === 'deadline' ? 'its deposit deadline has passed' : 'its auto-release is due';
    return { ok: false, reason: 'invalid_transition', message: `cannot ${action} a payment whose status is ${state.status}: ${why}` };
  }
  return checkTransition(state.status, action, resolution, partial);
}

/** A client's request as the rules read it: `amountMinor` is a refund's amount or a split's refund_amount. */
export interface TransitionRequestRule {
  action: ClientAction;
  resolution?: Resolution;
  amountMinor?: bigint;
}

/** A transition with the money it moves, or a refusal (`invalid_amount` names the field). */
export type TransitionPlan =
  | { ok: true; transition: Transition; movement: Movement; after: Amounts }
  | { ok: false; reason: 'invalid_transition' | 'resolution_required'; message: string }
  | { ok: false; reason: 'invalid_amount'; field: string; message: string };

/**
 * Everything a client's transition must pass, status and money: the table's row (a refund of less
 * than is held is the partial row), no timer due, and an amount the payment can pay.
 */
export function planTransition(
  state: PaymentState,
  req: TransitionRequestRule,
  now: number,
  pendingReleaseSince: number | null,
): TransitionPlan {
  const held = amountsOf(state).held;
  const isSplit = req.action === 'resolve' && req.resolution === 'split';
  const field = isSplit ? 'refund_amount' : 'amount';
  const partial = req.action === 'refund' && req.amountMinor !== undefined && req.amountMinor < held;
  const check = checkClientTransition(state, req.action, req.resolution, now, pendingReleaseSince, partial);
  if (!check.ok) return check;
  const money = (text: bigint) => `${formatMinor(text, storedExponent(state))} ${state.currency}`;
  if (req.amountMinor !== undefined) {
    if (req.action !== 'refund' && !isSplit) {
      return { ok: false, reason: 'invalid_amount', field: 'refund_amount', message: 'refund_amount is only for the split resolution' };
    }
    if (req.amountMinor <= 0n) return { ok: false, reason: 'invalid_amount', field, message: `${field} must be greater than 0` };
    if (req.amountMinor > held || (isSplit && req.amountMinor === held)) {
      const bound = isSplit ? 'less than' : 'at most';
      return { ok: false, reason: 'invalid_amount', field, message: `${field} must be ${bound} the amount held, ${money(held)}` };
    }
  } else if (isSplit) {
    return { ok: false, reason: 'invalid_amount', field, message: 'refund_amount is required for the split resolution' };
  }
  return planMovement(state, check.transition, req.amountMinor);
}

/** The money a transition allowed by the table moves (a timer's, or a client's after its checks). */
export function planMovement(state: PaymentState, transition: Transition, part?: bigint): TransitionPlan {
  const result = move(transition.money, moneyOf(state), amountsOf(state), part);
  if (!result.ok) return { ok: false, reason: 'invalid_amount', field: result.field, message: result.message };
  return { ok: true, transition, movement: result.movement, after: result.after };
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
  /** The money this step moved (minor units as decimal text), when it moved any: the ledger entry's source. */
  movement?: MovementRecord;
}

/** A `Movement` as it crosses JSON (activity arguments, update results, history). */
export interface MovementRecord {
  deposited: string;
  refunded: string;
  released: string;
  fee: string;
}

export const movementRecord = (m: Movement): MovementRecord => ({
  deposited: m.deposited.toString(),
  refunded: m.refunded.toString(),
  released: m.released.toString(),
  fee: m.fee.toString(),
});

export const movementOf = (r: MovementRecord): Movement => ({
  deposited: BigInt(r.deposited),
  refunded: BigInt(r.refunded),
  released: BigInt(r.released),
  fee: BigInt(r.fee),
});

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
  /**
   * Money (docs/money.md), minor units as decimal text. Absent in payments created before the
   * ledger: `amountsOf` derives theirs from the status, and their fee is 0.
   */
  platformFeeMinor?: string;
  heldMinor?: string;
  releasedMinor?: string;
  refundedMinor?: string;
  feeCollectedMinor?: string;
}

/** The amount and fee a payment's money is measured against. */
export function moneyOf(state: PaymentState): { amount: bigint; platformFee: bigint } {
  return { amount: BigInt(state.amountMinor), platformFee: BigInt(state.platformFeeMinor ?? '0') };
}

/** The payment's amounts: as the workflow kept them, or, for a payment made before it kept them, from its status. */
export function amountsOf(state: PaymentState): Amounts {
  if (state.heldMinor !== undefined) {
    return {
      held: BigInt(state.heldMinor),
      released: BigInt(state.releasedMinor ?? '0'),
      refunded: BigInt(state.refundedMinor ?? '0'),
      feeCollected: BigInt(state.feeCollectedMinor ?? '0'),
    };
  }
  const { amount, platformFee } = moneyOf(state);
  switch (state.status) {
    case 'pending_deposit':
    case 'cancelled':
      return ZERO_AMOUNTS;
    case 'released':
      return { ...ZERO_AMOUNTS, released: amount, feeCollected: platformFee };
    case 'refunded':
      return { ...ZERO_AMOUNTS, refunded: amount };
    default:
      return { ...ZERO_AMOUNTS, held: amount };
  }
}

/** The state with its amounts written out. */
export function withAmounts(state: PaymentState, a: Amounts = amountsOf(state)): PaymentState {
  return {
    ...state,
    platformFeeMinor: state.platformFeeMinor ?? '0',
    heldMinor: a.held.toString(),
    releasedMinor: a.released.toString(),
    refundedMinor: a.refunded.toString(),
    feeCollectedMinor: a.feeCollected.toString(),
  };
}

/** Apply a planned transition to a state; pure, returns the new state and its history entry. */
export function applyTransition(
  state: PaymentState,
  plan: { transition: Transition; movement: Movement; after: Amounts },
  meta: { actor: string; reason: string | null; at: string },
): { state: PaymentState; entry: HistoryEntry } {
  const { transition } = plan;
  const next: PaymentState = withAmounts({ ...state, status: transition.to, updatedAt: meta.at, version: state.version + 1 }, plan.after);
  const entry: HistoryEntry = {
    seq: next.version,
    action: transition.action,
    from: state.status,
    to: transition.to,
    event: transition.event,
    actor: meta.actor,
    reason: meta.reason,
    at: meta.at,
    ...(isEmptyMovement(plan.movement) ? {} : { movement: movementRecord(plan.movement) }),
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

/**
 * When a payment entered pending_release (ms), from its history: the entry that moved it there
 * last; null unless it is pending_release now. A repaired run re-arms auto-release from this.
 */
export function pendingReleaseSinceOf(state: PaymentState, history: readonly HistoryEntry[]): number | null {
  if (state.status !== 'pending_release') return null;
  const entered = [...history].reverse().find((e) => e.to === 'pending_release');
  return entered ? Date.parse(entered.at) : null;
}

/** The pending deposit deadline or auto-release time (the `NextDeadline` search attribute); null when none is pending. */
export function nextDeadlineOf(state: PaymentState, pendingReleaseSince: number | null): Date | null {
  if (state.status === 'pending_deposit') return new Date(state.depositDeadline);
  if (state.status === 'pending_release' && state.autoReleaseAfterSeconds != null && pendingReleaseSince != null) {
    return new Date(pendingReleaseSince + state.autoReleaseAfterSeconds * 1000);
  }
  return null;
}
