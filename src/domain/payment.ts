/**
 * The payment rules, as data. The workflow, the API, the OpenAPI document and the tests all read
 * this module; there is no second copy of the state machine anywhere.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */

import { type Amounts, type MoneyEffect, type Movement, feeOnReleased, isEmptyMovement, move } from './ledger';
import { formatMinor } from './amountText';
import { dueTimer } from './paymentTimers';
import { type MovementRecord, movementRecord } from './movementRecord';
import { amountsOf, moneyOf, withAmounts } from './paymentMoney';
import {
  type MilestoneChange,
  type MilestoneState,
  type StepEvent,
  holdsMoney,
  milestoneAmounts,
  paymentStatusOf,
  stepEvents,
  sumOfMilestones,
  wholeMilestone,
  withMilestoneAmounts,
} from './milestones';

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

/** A request as the rules read it: `amountMinor` is a refund's amount or a split's refund_amount; `milestoneId` narrows it to one milestone. */
export interface TransitionRequestRule {
  action: TransitionAction;
  resolution?: Resolution;
  amountMinor?: bigint;
  milestoneId?: string;
}

/**
 * One step, planned: the payment's status after it, the money it moves (in all, and per milestone),
 * its milestones after it and the events it emits, in delivery order.
 */
export interface PlannedStep {
  action: TransitionAction;
  milestoneId?: string;
  to: PaymentStatus;
  movement: Movement;
  after: Amounts;
  milestones: MilestoneState[];
  changes: MilestoneChange[];
  events: StepEvent[];
}

type Refusal =
  | {
      ok: false;
      reason: 'invalid_transition' | 'resolution_required';
      status: PaymentStatus;
      message: string;
      /** The actions the payment (or the milestone named) may take now: the refusal's next steps. */
      allowed: ClientAction[];
    }
  | { ok: false; reason: 'invalid_amount'; field: string; message: string }
  | { ok: false; reason: 'unknown_milestone'; message: string }
  | { ok: false; reason: 'invalid_argument'; message: string };

/** A step with the money it moves, or a refusal (`invalid_amount` names the field; `invalid_transition` the status refused). */
export type TransitionPlan = ({ ok: true } & PlannedStep) | Refusal;

/**
 * Everything a step must pass, status and money, and what it does. A client's request (`client`)
 * is refused while a timer it would race is due. Without `milestoneId` the action is the payment's:
 * it acts on every milestone whose status the table lets it act on, and is refused, naming the
 * payment's status, when there is none (a partial refund or a split only while exactly one
 * milestone holds money). With one, the table answers for that milestone's status; only a
 * milestone action, or the workflow's auto-release, names one. A refund of less than is held is
 * the partial row.
 */
export function planTransition(state: PaymentState, req: TransitionRequestRule, now: number, client = true): TransitionPlan {
  // A deposit, a cancel or the deadline moves every milestone at once; the auto-release is the workflow's, of one milestone.
  const perMilestone: readonly TransitionAction[] = client ? MILESTONE_ACTIONS : [...MILESTONE_ACTIONS, 'auto_release'];
  if (req.milestoneId !== undefined && !perMilestone.includes(req.action)) {
    return { ok: false, reason: 'invalid_argument', message: `${req.action} is the payment's action: it names no milestone` };
  }
  // No milestone's id is undefined: a payment-level request finds none.
  const milestone = state.milestones.find((m) => m.id === req.milestoneId);
  if (req.milestoneId !== undefined && !milestone) {
    return { ok: false, reason: 'unknown_milestone', message: `this payment has no milestone ${req.milestoneId}` };
  }
  const of = milestone ? 'milestone' : 'payment';
  const status = milestone ? milestone.status : state.status;
  const held = milestone ? BigInt(milestone.heldMinor) : amountsOf(state).held;
  const isSplit = req.action === 'resolve' && req.resolution === 'split';
  const field = isSplit ? 'refund_amount' : 'amount';
  const partial = req.action === 'refund' && req.amountMinor !== undefined && req.amountMinor < held;
  const refused = (
    message: string,
    reason: 'invalid_transition' | 'resolution_required' = 'invalid_transition',
    allowed = nextActions(state, req.milestoneId),
  ): Refusal => ({ ok: false, reason, status, message, allowed });
  const due = client ? dueTimer(state, now, req.milestoneId) : undefined;
  if (due) {
    const why = due === 'deadline' ? 'its deposit deadline has passed' : 'its auto-release is due';
    return refused(`${refusalMessage(req.action, status, of)}: ${why}`);
  }
  // With one milestone its status is the payment's, so the payment's action is read as it always was.
  const able = (milestone ? [milestone] : state.milestones).filter(
    (m) => checkTransition(m.status, req.action, req.resolution, partial).ok,
  );
  if (able.length === 0) {
    const check = checkTransition(status, req.action, req.resolution, partial);
    return check.ok || check.reason === 'invalid_transition'
      ? refused(refusalMessage(req.action, status, of))
      : refused(check.message, check.reason);
  }
  const money = (minor: bigint) => `${formatMinor(minor, state.amountExponent)} ${state.currency}`;
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
  if (!milestone && (partial || isSplit)) {
    const holders = state.milestones.filter(holdsMoney);
    if (holders.length !== 1) {
      const what = isSplit ? 'a split' : 'a partial refund';
      // The action refused is each milestone's now, not the payment's: not among the next steps.
      return refused(
        `${refusalMessage(req.action, status)} with ${what} while ${holders.length} milestones hold money: name the milestone (POST /api/v1/payments/${state.id}/milestones/{milestone}/${req.action})`,
        'invalid_transition',
        nextActions(state).filter((a) => a !== req.action),
      );
    }
  }
  return planSteps(state, req, able, now, partial);
}

/** The step's effect on each target milestone in turn (the fee rule reads the running total released), then on the payment. */
function planSteps(
  state: PaymentState,
  req: TransitionRequestRule,
  targets: MilestoneState[],
  now: number,
  partial: boolean,
): TransitionPlan {
  const { amount, platformFee } = moneyOf(state);
  let released = amountsOf(state).released;
  const total: Movement = { deposited: 0n, refunded: 0n, released: 0n, fee: 0n };
  const changes: MilestoneChange[] = [];
  const milestones = state.milestones.map((m) => {
    if (!targets.includes(m)) return m;
    const check = checkTransition(m.status, req.action, req.resolution, partial);
    if (!check.ok) return m;
    const { transition } = check;
    const moved = move(transition.money, { amount: BigInt(m.amountMinor), platformFee: 0n }, milestoneAmounts(m), req.amountMinor);
    if (!moved.ok) throw new Error(`${m.id}: ${moved.message}`);
    // The payment's fee stays pro rata to everything released (docs/money.md); this release collects the difference.
    const fee = feeOnReleased(platformFee, amount, released + moved.movement.released) - feeOnReleased(platformFee, amount, released);
    released += moved.movement.released;
    const movement = { ...moved.movement, fee };
    for (const k of ['deposited', 'refunded', 'released', 'fee'] as const) total[k] += movement[k];
    const before = milestoneAmounts(m);
    const releaseAt =
      transition.to !== 'pending_release'
        ? null
        : m.status === 'pending_release'
          ? m.releaseAt
          : m.autoReleaseAfterSeconds === null
            ? null
            : new Date(now + m.autoReleaseAfterSeconds * 1000).toISOString();
    changes.push({
      id: m.id,
      from: m.status,
      to: transition.to,
      ...(isEmptyMovement(movement) ? {} : { movement: movementRecord(movement) }),
    });
    return withMilestoneAmounts({ ...m, status: transition.to, releaseAt }, { ...moved.after, feeCollected: before.feeCollected + fee });
  });
  const to = paymentStatusOf(milestones);
  const events = stepEvents({ from: state.status, to, refunded: total.refunded, changes }, state.staged);
  return {
    ok: true,
    action: req.action,
    ...(req.milestoneId === undefined ? {} : { milestoneId: req.milestoneId }),
    to,
    movement: total,
    after: sumOfMilestones(milestones),
    milestones,
    changes,
    events,
  };
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

/** The payment with its milestones: one of the whole amount when it was started without (or recorded before them). */
export function withMilestones(
  state: Omit<PaymentState, 'milestones' | 'staged'> & Partial<Pick<PaymentState, 'milestones' | 'staged'>>,
): PaymentState {
  return { ...state, milestones: state.milestones ?? [wholeMilestone(state)], staged: state.staged ?? false };
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
