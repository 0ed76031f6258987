/**
 * One step planned by the payment rules (./payment.ts): the checks a request must pass, status,
 * timers and money, and what the step does to each milestone, the payment and its events; and the
 * planned step applied to the payment's state.
 * Pure: no I/O, no clocks, safe to import inside the Temporal workflow sandbox.
 */
import { type Amounts, type Movement, feeOnReleased, isEmptyMovement, move } from '../ledger/ledger.rules';
import { formatMinor } from '../ledger/amountText.rules';
import { dueTimer } from './paymentTimers.rules';
import { amountsOf, moneyOf, withAmounts } from './paymentMoney.rules';
import { type StepEvent, holdsMoney, paymentStatusOf, stepEvents, sumOfMilestones } from './milestones.rules';
import { SPLIT_RULES, TRANSITIONS, checkTransition, nextActions, refusalMessage } from './payment.rules';
import { closeDisputes } from './disputeTable.rules';
import {
  type ClientAction,
  type HistoryEntry,
  type MilestoneChange,
  type MilestoneState,
  type PaymentState,
  type PaymentStatus,
  type Resolution,
  type TransitionAction,
  type DisputeState,
  CLIENT_ACTIONS,
  MILESTONE_ACTIONS,
} from './paymentTypes.rules';

/** A request as the rules read it: `amountMinor` is a refund's amount or a split's refund_amount; `milestoneId` narrows it to one milestone. */
export interface TransitionRequestRule {
  action: TransitionAction;
  resolution?: Resolution;
  amountMinor?: bigint;
  milestoneId?: string;
  /** A dispute's withdrawal: the status each milestone returns to. */
  restore?: Readonly<Record<string, PaymentStatus>>;
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
  /** The payment's disputes after the step, when it opened, changed or ended one (./disputes.ts). */
  disputes?: DisputeState[];
  disputeId?: string;
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
type TransitionPlan = ({ ok: true } & PlannedStep) | Refusal;

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
  // The timers' own steps are the workflow's: a client's message naming one would jump its timer.
  if (client && !(CLIENT_ACTIONS as readonly TransitionAction[]).includes(req.action)) {
    return { ok: false, reason: 'invalid_argument', message: `${req.action} is a timer's action: no client asks for it` };
  }
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
  const held = amountsOf(milestone ?? state).held;
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
    const why =
      due === 'deadline'
        ? 'its deposit deadline has passed'
        : due === 'dispute_default'
          ? "its dispute's respond_by has passed"
          : 'its auto-release is due';
    return refused(`${refusalMessage(req.action, status, of)}: ${why}`);
  }
  const check = checkTransition(status, req.action, req.resolution, partial);
  if (!check.ok && check.reason === 'resolution_required') return refused(check.message, check.reason);
  // With one milestone its status is the payment's, so the payment's action is read as it always was.
  const able = (milestone ? [milestone] : state.milestones).filter(
    (m) => checkTransition(m.status, req.action, req.resolution, partial).ok,
  );
  if (able.length === 0) return refused(refusalMessage(req.action, status, of));
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
  // The platform's resolve (or refund) of a disputed milestone ends its dispute (./disputes.ts).
  return closeDisputes(state, planSteps(state, req, able, now, partial), 'platform', now);
}

/** The step's effect on each target milestone in turn (the fee rule reads the running total released), then on the payment. */
export function planSteps(
  state: PaymentState,
  req: TransitionRequestRule,
  targets: MilestoneState[],
  now: number,
  partial: boolean,
): { ok: true } & PlannedStep {
  const { amount, platformFee } = moneyOf(state);
  let released = amountsOf(state).released;
  const total: Movement = { deposited: 0n, refunded: 0n, released: 0n, fee: 0n };
  const changes: MilestoneChange[] = [];
  const milestones = state.milestones.map((m) => {
    if (!targets.includes(m)) return m;
    const check = checkTransition(m.status, req.action, req.resolution, partial);
    if (!check.ok) return m;
    // A withdrawal returns each milestone to its status before the dispute.
    const back = req.restore?.[m.id];
    const transition = (back && TRANSITIONS.find((t) => t.action === req.action && t.to === back)) || check.transition;
    const moved = move(transition.money, { amount: m.amountMinor, platformFee: 0n }, amountsOf(m), req.amountMinor);
    if (!moved.ok) throw new Error(`${m.id}: ${moved.message}`);
    // The payment's fee stays pro rata to everything released (docs/money.md); this release collects the difference.
    const fee = feeOnReleased(platformFee, amount, released + moved.movement.released) - feeOnReleased(platformFee, amount, released);
    released += moved.movement.released;
    const movement = { ...moved.movement, fee };
    for (const k of ['deposited', 'refunded', 'released', 'fee'] as const) total[k] += movement[k];
    const before = amountsOf(m);
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
      ...(isEmptyMovement(movement) ? {} : { movement }),
    });
    return withAmounts({ ...m, status: transition.to, releaseAt }, { ...moved.after, feeCollected: before.feeCollected + fee });
  });
  const to = paymentStatusOf(milestones);
  const events = stepEvents({ from: state.status, to, refunded: total.refunded, changes, action: req.action }, state.staged);
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

/** Apply a planned step to a state; pure, returns the new state and its history entry. */
export function applyTransition(
  state: PaymentState,
  step: PlannedStep,
  meta: { actor: string; reason: string | null; at: string },
): { state: PaymentState; entry: HistoryEntry } {
  const next: PaymentState = withAmounts(
    {
      ...state,
      status: step.to,
      milestones: step.milestones,
      updatedAt: meta.at,
      version: state.version + 1,
      ...(step.disputes ? { disputes: step.disputes } : {}),
    },
    step.after,
  );
  const entry: HistoryEntry = {
    seq: next.version,
    action: step.action,
    from: state.status,
    to: step.to,
    // The step's own event: its money's or status's, as before disputes were a process; a step that
    // only changed a dispute has payment.dispute_updated alone.
    event: (step.events.findLast((e) => e.event !== 'payment.dispute_updated') ?? step.events.at(-1)!).event,
    actor: meta.actor,
    reason: meta.reason,
    at: meta.at,
    ...(isEmptyMovement(step.movement) ? {} : { movement: step.movement }),
    ...(step.milestoneId === undefined ? {} : { milestoneId: step.milestoneId }),
    ...(step.changes.length > 0 ? { changes: step.changes } : {}),
    ...(step.disputeId === undefined ? {} : { disputeId: step.disputeId }),
  };
  return { state: next, entry };
}
