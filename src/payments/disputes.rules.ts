/**
 * Disputes as a process (docs/concepts.md, "Disputes"): opening one with its record, and planning
 * each of its own steps (evidence, offers, accept, decline, withdraw, and the respondent's lapsed
 * deadline) by the rules of ./disputeRules.ts. A step that moves money is planned by the transition
 * table (./paymentPlan.ts's `planSteps`), so an agreement settles exactly as a split does.
 * Pure: no I/O, no clocks (times are the payment's clock, passed in), safe in the workflow sandbox.
 */
import { formatMinor } from '../ledger/amountText.rules';
import {
  DEFAULT_OUTCOME,
  DISPUTE_RULES,
  MAX_EVIDENCE_ITEMS,
  RESPONDENT,
  closeDisputes,
  decidedByOf,
  disputeRefusal,
  latestDispute,
  withDisputes,
} from './disputeTable.rules';
import { sumOfMilestones } from './milestones.rules';
import { nextActions, refusalMessage } from './payment.rules';
import { type PlannedStep, planSteps } from './paymentPlan.rules';
import { amountsOf } from './paymentMoney.rules';
import type {
  ClientAction,
  DisputeAction,
  DisputeParty,
  DisputeState,
  DisputeStatus,
  PaymentState,
  PaymentStatus,
  Resolution,
} from './paymentTypes.rules';

/** What opening a dispute takes beside the `dispute` action: ids are the API's, so a retried request opens one. */
export interface DisputeOpening {
  id: string;
  openedBy: DisputeParty;
  respondWithinSeconds: number;
  /** The opening's reason, as the workflow carries it: a keyed hash. */
  reason: string | null;
}

/** A dispute's own action, as the rules read it. Texts are keyed hashes: the service keeps the text. */
export interface DisputeRequest {
  action: DisputeAction;
  milestoneId?: string;
  party: DisputeParty;
  /** The evidence's or offer's new id, or the offer accepted or declined. */
  itemId?: string;
  /** Evidence: its text's hash; an offer: its note's, or null. */
  hash?: string | null;
  /** An offer's refund to the payer (minor units); the rest of the disputed amount is released. */
  refundMinor?: bigint;
}

export type DisputeRefusal =
  | { ok: false; reason: 'dispute_out_of_turn'; disputeStatus: DisputeStatus; disputeId: string; message: string }
  | { ok: false; reason: 'invalid_transition'; status: PaymentStatus; message: string; allowed: ClientAction[] }
  | { ok: false; reason: 'unknown_milestone'; message: string }
  | { ok: false; reason: 'unknown_offer'; message: string }
  | { ok: false; reason: 'invalid_amount'; field: string; message: string };

type DisputePlan = ({ ok: true } & PlannedStep) | DisputeRefusal;

/**
 * The `dispute` step with its record: the milestones it moved to `disputed` (each with the status it
 * left), everything they hold, the respondent and `respond_by` (a platform's dispute has neither).
 */
export function openDispute(state: PaymentState, step: PlannedStep, opening: DisputeOpening, now: number): PlannedStep {
  const covers = step.changes.filter((c) => c.to === 'disputed' && c.from !== 'disputed').map((c) => ({ id: c.id, from: c.from }));
  const held = sumOfMilestones(state.milestones.filter((m) => covers.some((c) => c.id === m.id))).held;
  const respondent = RESPONDENT[opening.openedBy];
  const dispute: DisputeState = {
    id: opening.id,
    milestoneId: step.milestoneId ?? null,
    covers,
    status: 'awaiting_response',
    openedBy: opening.openedBy,
    respondent,
    reason: opening.reason,
    amountMinor: held,
    respondBy: respondent ? new Date(now + opening.respondWithinSeconds * 1000).toISOString() : null,
    evidence: [],
    offers: [],
    resolution: null,
    openedAt: new Date(now).toISOString(),
  };
  return withDisputes(state, step, [...(state.disputes ?? []), dispute], dispute.id);
}

/** The step that changes the record alone (evidence, an offer, a decline): status and money stay. */
function recordStep(state: PaymentState, req: { action: DisputeAction; milestoneId?: string }, dispute: DisputeState): PlannedStep {
  const disputes = (state.disputes ?? []).map((d) => (d.id === dispute.id ? dispute : d));
  const step: PlannedStep = {
    action: req.action,
    ...(req.milestoneId === undefined ? {} : { milestoneId: req.milestoneId }),
    to: state.status,
    movement: { deposited: 0n, refunded: 0n, released: 0n, fee: 0n },
    after: amountsOf(state),
    milestones: state.milestones,
    changes: [],
    events: [],
  };
  return withDisputes(state, step, disputes, dispute.id);
}

/** The milestones a dispute covers that are still disputed: what its outcome moves. */
const disputedOf = (state: PaymentState, d: DisputeState) =>
  state.milestones.filter((m) => m.status === 'disputed' && d.covers.some((c) => c.id === m.id));

/**
 * A part (neither nothing nor everything) of a dispute over several milestones: refused, since which
 * milestone gives what back is not for the service to guess (as for a payment's split).
 */
function partOverSeveral(milestones: number, refund: bigint, whole: bigint): DisputeRefusal | undefined {
  if (milestones === 1 || refund === 0n || refund === whole) return undefined;
  return {
    ok: false,
    reason: 'invalid_amount',
    field: 'refund_amount',
    message: `a dispute over ${milestones} milestones settles a part only milestone by milestone: open the dispute on a milestone`,
  };
}

/** The outcome's money by the transition table: `refund` to the payer, the rest of what the covered milestones hold released. */
function settle(
  state: PaymentState,
  d: DisputeState,
  action: 'dispute_accept' | 'dispute_default' | 'dispute_withdraw',
  refund: bigint | undefined,
  now: number,
  milestoneId?: string,
): DisputePlan {
  const targets = disputedOf(state, d);
  const held = sumOfMilestones(targets).held;
  let resolution: Resolution | undefined;
  if (refund !== undefined) {
    if (refund > held) {
      const money = `${formatMinor(held, state.amountExponent)} ${state.currency}`;
      return {
        ok: false,
        reason: 'invalid_amount',
        field: 'refund_amount',
        message: `refund_amount must be at most the amount held, ${money}`,
      };
    }
    resolution = refund === 0n ? 'release' : refund === held ? 'refund' : 'split';
    const several = partOverSeveral(targets.length, refund, held);
    if (several) return several;
  }
  const restore = action === 'dispute_withdraw' ? Object.fromEntries(d.covers.map((c) => [c.id, c.from])) : undefined;
  const step = planSteps(
    state,
    {
      action,
      resolution,
      ...(resolution === 'split' ? { amountMinor: refund } : {}),
      ...(milestoneId === undefined ? {} : { milestoneId }),
      ...(restore ? { restore } : {}),
    },
    targets,
    now,
    false,
  );
  return closeDisputes(state, step, decidedByOf(action), now);
}

/**
 * A party's dispute action, or its refusal: out of turn (a 409 naming the dispute's status), no
 * dispute at all (naming the payment's or milestone's status), an unknown milestone or offer, or an
 * amount the dispute cannot pay. Refused while the respondent's deadline is already due: it wins.
 */
export function planDispute(state: PaymentState, req: DisputeRequest, now: number): DisputePlan {
  const milestone = req.milestoneId === undefined ? undefined : state.milestones.find((m) => m.id === req.milestoneId);
  if (req.milestoneId !== undefined && !milestone) {
    return { ok: false, reason: 'unknown_milestone', message: `this payment has no milestone ${req.milestoneId}` };
  }
  const rule = DISPUTE_RULES[req.action];
  const d = latestDispute(state, req.milestoneId);
  if (!d) {
    const of = milestone ? 'milestone' : 'payment';
    const status = milestone?.status ?? state.status;
    return {
      ok: false,
      reason: 'invalid_transition',
      status,
      message: `${refusalMessage(req.action, status, of)}: it has no dispute`,
      allowed: nextActions(state, req.milestoneId),
    };
  }
  const out = (why?: string): DisputeRefusal => ({
    ok: false,
    reason: 'dispute_out_of_turn',
    disputeStatus: d.status,
    disputeId: d.id,
    message: disputeRefusal(req.action, d.status, why),
  });
  // A party the action is not for is told who may take it: the dispute's status is not the reason.
  const notYours = (message: string): DisputeRefusal => ({
    ok: false,
    reason: 'dispute_out_of_turn',
    disputeStatus: d.status,
    disputeId: d.id,
    message,
  });
  if (!rule.statuses.includes(d.status)) return out();
  // Its own deadline, already due, wins over a party's late word (the timer fires in the same task).
  if (d.status === 'awaiting_response' && d.respondBy !== null && now >= Date.parse(d.respondBy)) return out('its respond_by has passed');
  const at = new Date(now).toISOString();
  switch (req.action) {
    case 'dispute_evidence': {
      if (req.party === 'platform') return notYours('evidence comes from the payer or the recipient, not the platform');
      if (d.evidence.length >= MAX_EVIDENCE_ITEMS) return out(`it holds ${MAX_EVIDENCE_ITEMS} evidence items, the most it may`);
      const evidence = [...d.evidence, { id: req.itemId!, party: req.party, hash: req.hash!, submittedAt: at }];
      // The respondent's first word moves the dispute to review: silence no longer decides it.
      const status = d.status === 'awaiting_response' && req.party === d.respondent ? 'under_review' : d.status;
      return { ok: true, ...recordStep(state, req, { ...d, evidence, status }) };
    }
    case 'dispute_offer': {
      if (req.party === 'platform') return notYours('offers come from the payer or the recipient; the platform resolves');
      const refund = req.refundMinor!;
      if (refund < 0n || refund > d.amountMinor) {
        const money = `${formatMinor(d.amountMinor, state.amountExponent)} ${state.currency}`;
        return {
          ok: false,
          reason: 'invalid_amount',
          field: 'refund_amount',
          message: `refund_amount must be from 0 to the amount disputed, ${money}`,
        };
      }
      const several = partOverSeveral(disputedOf(state, d).length, refund, d.amountMinor);
      if (several) return several;
      const offers = d.offers.map((o) =>
        o.proposedBy === req.party && o.status === 'proposed' ? { ...o, status: 'superseded' as const } : o,
      );
      offers.push({
        id: req.itemId!,
        proposedBy: req.party,
        refundMinor: refund,
        noteHash: req.hash ?? null,
        status: 'proposed',
        createdAt: at,
      });
      return { ok: true, ...recordStep(state, req, { ...d, offers }) };
    }
    case 'dispute_accept':
    case 'dispute_decline': {
      const offer = d.offers.find((o) => o.id === req.itemId);
      if (!offer) return { ok: false, reason: 'unknown_offer', message: `dispute ${d.id} has no offer ${req.itemId}` };
      if (offer.status !== 'proposed') return out(`offer ${offer.id} is ${offer.status}`);
      if (req.party === offer.proposedBy || req.party === 'platform') {
        const to = offer.proposedBy === 'payer' ? 'recipient' : 'payer';
        const verb = req.action === 'dispute_accept' ? 'accept' : 'decline';
        return notYours(`only the ${to}, to whom offer ${offer.id} was made, may ${verb} it: the ${offer.proposedBy} made it`);
      }
      const status = req.action === 'dispute_accept' ? ('accepted' as const) : ('declined' as const);
      const answered = { ...d, offers: d.offers.map((o) => (o.id === offer.id ? { ...o, status } : o)) };
      if (req.action === 'dispute_decline') return { ok: true, ...recordStep(state, req, answered) };
      const withAnswer = { ...state, disputes: (state.disputes ?? []).map((x) => (x.id === d.id ? answered : x)) };
      return settle(withAnswer, answered, 'dispute_accept', offer.refundMinor, now, req.milestoneId);
    }
    case 'dispute_withdraw': {
      if (req.party !== d.openedBy) return notYours(`only the ${d.openedBy}, who opened dispute ${d.id}, may withdraw it`);
      return settle(state, d, 'dispute_withdraw', undefined, now, req.milestoneId);
    }
  }
}

/** The respondent's deadline lapsed: the dispute is decided for the party that opened it, if it is still awaiting a response. */
export function planDisputeDefault(state: PaymentState, disputeId: string, now: number): ({ ok: true } & PlannedStep) | undefined {
  const d = state.disputes?.find((x) => x.id === disputeId);
  const outcome = d && DEFAULT_OUTCOME[d.openedBy];
  if (!d || !outcome || d.status !== 'awaiting_response' || disputedOf(state, d).length === 0) return undefined;
  const held = sumOfMilestones(disputedOf(state, d)).held;
  const plan = settle(state, d, 'dispute_default', outcome === 'refund' ? held : 0n, now, d.milestoneId ?? undefined);
  return plan.ok ? plan : undefined;
}
