/**
 * A dispute's rules, as data (docs/concepts.md, "Disputes"): who responds, what the respondent's
 * silence decides, which party may take which action in which dispute status, and how a step that
 * moves a disputed milestone's money ends its dispute. The money itself moves by the transition
 * table (./payment.ts); planning a dispute's own step is ./disputes.ts's.
 * Pure: no I/O, no clocks, safe in the workflow sandbox.
 */
import type { Movement } from '../ledger/ledger.rules';
import { stepEvents } from './milestones.rules';
import type {
  DealParty,
  DecidedBy,
  DisputeAction,
  DisputeParty,
  DisputeState,
  DisputeStatus,
  PaymentState,
  PaymentStatus,
  Resolution,
} from './paymentTypes.rules';

/** At most this many evidence items per dispute, each at most this many characters. */
export const MAX_EVIDENCE_ITEMS = 20;
export const MAX_EVIDENCE_CHARS = 20_000;
export const MAX_OFFER_NOTE_CHARS = 20_000;

/** A dispute still waiting for an outcome. */
export const OPEN_DISPUTE_STATUSES: readonly DisputeStatus[] = ['awaiting_response', 'under_review'];
export const isOpen = (d: Pick<DisputeState, 'status'>) => OPEN_DISPUTE_STATUSES.includes(d.status);

/** The other party of a dispute a party opened; one the platform opened has none. */
export const RESPONDENT: Readonly<Record<DisputeParty, DealParty | null>> = { payer: 'recipient', recipient: 'payer', platform: null };

/** What a respondent's silence until `respond_by` decides: for the party that opened it. */
export const DEFAULT_OUTCOME: Readonly<Record<DisputeParty, Extract<Resolution, 'release' | 'refund'> | null>> = {
  payer: 'refund',
  recipient: 'release',
  platform: null,
};

/** Who may take a dispute's action, in which of its statuses, and how the refusal words it. */
export const DISPUTE_RULES: Readonly<Record<DisputeAction, { statuses: readonly DisputeStatus[]; verb: string; who: string }>> = {
  dispute_evidence: { statuses: OPEN_DISPUTE_STATUSES, verb: 'add evidence to', who: 'payer or recipient' },
  dispute_offer: { statuses: OPEN_DISPUTE_STATUSES, verb: 'make an offer in', who: 'payer or recipient' },
  dispute_accept: { statuses: OPEN_DISPUTE_STATUSES, verb: 'accept an offer in', who: 'the party the offer was made to' },
  dispute_decline: { statuses: OPEN_DISPUTE_STATUSES, verb: 'decline an offer in', who: 'the party the offer was made to' },
  dispute_withdraw: { statuses: OPEN_DISPUTE_STATUSES, verb: 'withdraw', who: 'the party that opened it' },
};

/** Who decides a dispute, by the step that ends it. */
export function decidedByOf(action: string): DecidedBy {
  if (action === 'dispute_accept') return 'agreement';
  if (action === 'dispute_default') return 'default';
  if (action === 'dispute_withdraw') return 'withdrawal';
  return 'platform';
}

/** The refusal of a dispute's action its status (or the party) does not allow, naming the dispute's status. */
export function disputeRefusal(action: DisputeAction, status: DisputeStatus, why?: string): string {
  return `cannot ${DISPUTE_RULES[action].verb} a dispute whose status is ${status}${why ? `: ${why}` : ''}`;
}

/** The dispute a payment's route acts on (its latest), or a milestone's (the latest covering it); ended ones too. */
export function latestDispute<D extends DisputeState>(state: { disputes?: D[] }, milestoneId?: string): D | undefined {
  const disputes = state.disputes ?? [];
  if (milestoneId === undefined) return disputes.at(-1);
  return disputes.findLast((d) => d.covers.some((c) => c.id === milestoneId));
}

/** A step as the dispute rules read it: the planned step's fields they need. */
interface Step {
  action: string;
  to: PaymentStatus;
  movement: { refunded: bigint };
  changes: { id: string; from: PaymentStatus; to: PaymentStatus; movement?: Movement }[];
  disputes?: DisputeState[];
  disputeId?: string;
  events: ReturnType<typeof stepEvents>;
}

/** The step with the payment's disputes after it and the dispute it is about; its events end with `payment.dispute_updated`. */
export function withDisputes<S extends Step>(state: PaymentState, step: S, disputes: DisputeState[], disputeId: string): S {
  const events = stepEvents(
    { from: state.status, to: step.to, refunded: step.movement.refunded, changes: step.changes, action: step.action as never, disputeId },
    state.staged,
  );
  return { ...step, disputes, disputeId, events };
}

/**
 * A step that takes disputed milestones out of `disputed` ends each open dispute none of whose
 * milestones stays disputed: resolved (withdrawn for a withdrawal), with the money this step moved
 * for them and who decided it; its offers still proposed expire. `at` is on the payment's clock. A payment never disputed has no
 * disputes: the step is returned as it is.
 */
export function closeDisputes<S extends Step>(state: PaymentState, step: S, decidedBy: DecidedBy, at: number): S {
  const current = step.disputes ?? state.disputes;
  if (!current || !current.some(isOpen)) return step;
  const left = new Set(step.changes.filter((c) => c.from === 'disputed' && c.to !== 'disputed').map((c) => c.id));
  if (left.size === 0) return step;
  const stillDisputed = new Set(step.changes.filter((c) => c.to === 'disputed').map((c) => c.id));
  const untouched = new Set(state.milestones.filter((m) => m.status === 'disputed' && !left.has(m.id)).map((m) => m.id));
  let closed: string | undefined;
  const disputes = current.map((d) => {
    if (!isOpen(d) || !d.covers.some((c) => left.has(c.id))) return d;
    if (d.covers.some((c) => stillDisputed.has(c.id) || untouched.has(c.id))) return d;
    let refund = 0n;
    let release = 0n;
    for (const c of step.changes) {
      if (!c.movement || !d.covers.some((k) => k.id === c.id)) continue;
      refund += c.movement.refunded;
      release += c.movement.released;
    }
    closed = d.id;
    return {
      ...d,
      status: decidedBy === 'withdrawal' ? ('withdrawn' as const) : ('resolved' as const),
      // An offer nobody answered cannot be answered any more: it ends with its dispute.
      offers: d.offers.map((o) => (o.status === 'proposed' ? { ...o, status: 'expired' as const } : o)),
      resolution: { refundMinor: refund, releaseMinor: release, decidedBy, at: new Date(at).toISOString() },
    };
  });
  return closed === undefined ? step : withDisputes(state, step, disputes, closed);
}
