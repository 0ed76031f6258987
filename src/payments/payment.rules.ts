/**
 * The payment rules, as data. The workflow, the API, the OpenAPI document and the tests all read
 * this module; there is no second copy of the state machine anywhere. What a payment is (its
 * statuses, events, state and history) is ./paymentTypes.ts's; planning and applying one step by
 * these rules is ./paymentPlan.ts's.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */

import type { MoneyEffect } from '../ledger/ledger.rules';
import {
  type ClientAction,
  type HistoryEntry,
  type PaymentEvent,
  type PaymentState,
  type PaymentStatus,
  type Resolution,
  type TransitionAction,
  CLIENT_ACTIONS,
  MILESTONE_ACTIONS,
  TERMINAL_STATUSES,
} from './paymentTypes.rules';

/** The refusal of an action the payment's (or one milestone's) status does not allow, as every layer words it. */
export function refusalMessage(action: string, status: string, of: 'payment' | 'milestone' = 'payment'): string {
  return `cannot ${action} a ${of} whose status is ${status}`;
}

/** A resolution's `refund_amount` rules, worded once for the API's validation and the workflow's. */
export const SPLIT_RULES = {
  requiredForSplit: 'refund_amount is required for the split resolution',
  onlyForSplit: 'refund_amount is only for the split resolution',
} as const;

export interface Transition {
  action: TransitionAction;
  /** For resolve, which outcome this row describes. */
  resolution?: Resolution;
  /** A refund of part of what is held: the status stays (docs/money.md). */
  partial?: true;
  from: readonly PaymentStatus[];
  to: PaymentStatus;
  event: PaymentEvent;
  /** What the transition does to the money held (src/ledger/ledger.rules.ts). */
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
  // A dispute's endings other than the platform's `resolve` (docs/concepts.md, "Disputes"): an accepted
  // offer (as a resolve would: everything released, refunded, or split), the respondent's lapsed
  // deadline (for the party that opened it), and a withdrawal back to the status before the dispute.
  { action: 'dispute_accept', resolution: 'release', from: ['disputed'], to: 'released', event: 'payment.released', money: 'release_rest' },
  { action: 'dispute_accept', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded', money: 'refund_rest' },
  { action: 'dispute_accept', resolution: 'split', from: ['disputed'], to: 'released', event: 'payment.released', money: 'split' },
  {
    action: 'dispute_default',
    resolution: 'release',
    from: ['disputed'],
    to: 'released',
    event: 'payment.released',
    money: 'release_rest',
  },
  { action: 'dispute_default', resolution: 'refund', from: ['disputed'], to: 'refunded', event: 'payment.refunded', money: 'refund_rest' },
  ...(['in_custody', 'pending_release'] as const).map((to): Transition => ({
    action: 'dispute_withdraw',
    from: ['disputed'],
    to,
    event: 'payment.dispute_updated',
    money: 'none',
  })),
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
