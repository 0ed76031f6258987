/**
 * The payment rules, as data. The workflow, the API, the OpenAPI document and the tests all read
 * this module; there is no second copy of the state machine anywhere. Planning one step by them
 * is ./paymentPlan.ts's.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */

import { type MoneyEffect, isEmptyMovement } from './ledger';
import { type MovementRecord, movementRecord } from './movementRecord';
import { withAmounts } from './paymentMoney';
import type { MilestoneChange, MilestoneState } from './milestones';
import type { PlannedStep } from './paymentPlan';

export * from './paymentTimers';
export * from './movementRecord';
export * from './paymentMoney';
export * from './milestones';

/** The refusal of an action the payment's (or one milestone's) status does not allow, as every layer words it. */
export function refusalMessage(action: string, status: string, of: 'payment' | 'milestone' = 'payment'): string {
  return `cannot ${action} a ${of} whose status is ${status}`;
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
  'payment.milestone_approved',
  'payment.milestone_released',
  'payment.milestone_disputed',
  'payment.test',
] as const;
export type PaymentEvent = (typeof PAYMENT_EVENTS)[number];

/** Actions a client may request over the API (create is the workflow start, not a transition). */
export const CLIENT_ACTIONS = ['deposit', 'approve', 'release', 'cancel', 'refund', 'dispute', 'resolve'] as const;
export type ClientAction = (typeof CLIENT_ACTIONS)[number];
/** Actions the workflow takes by itself, on its durable timers. */
export type TimerAction = 'deadline' | 'auto_release';
export type TransitionAction = ClientAction | TimerAction;

/** Actions a client may request of one milestone (docs/concepts.md, "Deals paid in stages"). */
export const MILESTONE_ACTIONS = ['approve', 'release', 'refund', 'dispute', 'resolve'] as const satisfies readonly ClientAction[];
export type MilestoneAction = (typeof MILESTONE_ACTIONS)[number];

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

/** The statuses an action may start from (for documentation and error details). */
export function allowedFrom(action: TransitionAction): PaymentStatus[] {
  return [...new Set(TRANSITIONS.filter((t) => t.action === action).flatMap((t) => t.from))];
}

/** The actions a client may request from a status, of a payment or of one milestone, in CLIENT_ACTIONS' order (a refusal's next step). */
export function allowedActions(status: PaymentStatus, of: 'payment' | 'milestone' = 'payment'): ClientAction[] {
  const actions: readonly ClientAction[] = of === 'payment' ? CLIENT_ACTIONS : MILESTONE_ACTIONS;
  return actions.filter((action) => TRANSITIONS.some((t) => t.action === action && t.from.includes(status)));
}

/**
 * The actions a client may request now: of the payment, each that some milestone's status allows
 * (with one milestone, those its status allows); of one milestone, the milestone actions its status
 * allows. In CLIENT_ACTIONS' order.
 */
export function nextActions(state: Pick<PaymentState, 'milestones'>, milestoneId?: string): ClientAction[] {
  if (milestoneId === undefined) {
    const statuses = new Set(state.milestones.map((m) => m.status));
    return CLIENT_ACTIONS.filter((action) => [...statuses].some((s) => allowedActions(s).includes(action)));
  }
  const milestone = state.milestones.find((m) => m.id === milestoneId);
  return milestone ? allowedActions(milestone.status, 'milestone') : [];
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
  /** The money this step moved (minor units as decimal text), when it moved any. */
  movement?: MovementRecord;
  /** The milestone a milestone action (or its timer, on a payment with milestones) named. */
  milestoneId?: string;
  /** What the step did to each milestone it moved: the ledger entries' source (one per milestone that moved money). */
  changes?: MilestoneChange[];
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
  /** The parts the amount is released in; one, of the whole amount, for a payment created without milestones. */
  milestones: MilestoneState[];
  /** Created with milestones: its steps also emit the milestone events (docs/webhooks.md). */
  staged: boolean;
}

/** Apply a planned step to a state; pure, returns the new state and its history entry. */
export function applyTransition(
  state: PaymentState,
  step: PlannedStep,
  meta: { actor: string; reason: string | null; at: string },
): { state: PaymentState; entry: HistoryEntry } {
  const next: PaymentState = withAmounts(
    { ...state, status: step.to, milestones: step.milestones, updatedAt: meta.at, version: state.version + 1 },
    step.after,
  );
  const entry: HistoryEntry = {
    seq: next.version,
    action: step.action,
    from: state.status,
    to: step.to,
    event: step.events.at(-1)!.event,
    actor: meta.actor,
    reason: meta.reason,
    at: meta.at,
    ...(isEmptyMovement(step.movement) ? {} : { movement: movementRecord(step.movement) }),
    ...(step.milestoneId === undefined ? {} : { milestoneId: step.milestoneId }),
    ...(step.changes.length > 0 ? { changes: step.changes } : {}),
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
