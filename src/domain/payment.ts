/**
 * The payment rules, as data. The workflow, the API, the OpenAPI document and the tests all read
 * this module; there is no second copy of the state machine anywhere.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */

import { type Amounts, type MoneyEffect, type Movement, isEmptyMovement, move } from './ledger';
import { formatMinor } from './amountText';
import { dueTimer } from './paymentTimers';
import { type MovementRecord, movementRecord } from './movementRecord';
import { amountsOf, moneyOf, withAmounts } from './paymentMoney';

export * from './paymentTimers';
export * from './movementRecord';
export * from './paymentMoney';

/** The refusal of an action the payment's status does not allow, as every layer words it. */
export function refusalMessage(action: string, status: string): string {
  return `cannot ${action} a payment whose status is ${status}`;
}

/** A resolution's `refund_amount` rules, worded once for the API's validation and the workflow's. */
export const SPLIT_RULES = {
  requiredForSplit: 'refund_amount is required for the split resolution',
  onlyForSplit: 'refund_amount is only for the split resolution',
} as const;

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

type TransitionCheck =
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
  if (!transition) return { ok: false, reason: 'invalid_transition', message: refusalMessage(action, status) };
  return { ok: true, transition };
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
    return { ok: false, reason: 'invalid_transition', message: `${refusalMessage(action, state.status)}: ${why}` };
  }
  return checkTransition(state.status, action, resolution, partial);
}

/** A client's request as the rules read it: `amountMinor` is a refund's amount or a split's refund_amount. */
interface TransitionRequestRule {
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
  const money = (text: bigint) => `${formatMinor(text, state.amountExponent)} ${state.currency}`;
  if (req.amountMinor !== undefined) {
    if (req.action !== 'refund' && !isSplit) {
      return { ok: false, reason: 'invalid_amount', field: 'refund_amount', message: SPLIT_RULES.onlyForSplit };
    }
    if (req.amountMinor <= 0n) return { ok: false, reason: 'invalid_amount', field, message: `${field} must be greater than 0` };
    if (req.amountMinor > held || (isSplit && req.amountMinor === held)) {
      const bound = isSplit ? 'less than' : 'at most';
      return { ok: false, reason: 'invalid_amount', field, message: `${field} must be ${bound} the amount held, ${money(held)}` };
    }
  } else if (isSplit) {
    return { ok: false, reason: 'invalid_amount', field, message: SPLIT_RULES.requiredForSplit };
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

/** The actions a client may request from a status, in CLIENT_ACTIONS' order (a refusal's next step). */
export function allowedActions(status: PaymentStatus): ClientAction[] {
  return CLIENT_ACTIONS.filter((action) => TRANSITIONS.some((t) => t.action === action && t.from.includes(status)));
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

/** The payment as the workflow holds it: money in integer minor units. */
export interface PaymentState {
  id: string;
  accountId: string;
  livemode: boolean;
  amountMinor: string; // bigint as decimal string: survives JSON and the workflow sandbox
  /**
   * The currency's minor units when the amount was taken, kept with it so that an update of the
   * ISO table never rescales a stored amount.
   */
  amountExponent: number;
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
  /** Money (docs/money.md), minor units as decimal text. */
  platformFeeMinor: string;
  heldMinor: string;
  releasedMinor: string;
  refundedMinor: string;
  feeCollectedMinor: string;
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
