/**
 * What a payment is: its statuses, events and actions, its state as the workflow holds it, its
 * milestones and its history. Types and the lists they are read from only; the rules over them are
 * ./payment.ts's (the transition table), ./milestones.ts's and ./paymentPlan.ts's. The payment with
 * the personal data the service keeps beside it is ./paymentRecord.ts's.
 * A leaf: it imports nothing but a type, so every module of the domain may import it.
 */
import type { Movement } from '../ledger/ledger.rules';

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
  'payment.partially_funded',
  'payment.disputed',
  'payment.milestone_approved',
  'payment.milestone_released',
  'payment.milestone_disputed',
  'payment.dispute_updated',
  'payment.test',
] as const;
export type PaymentEvent = (typeof PAYMENT_EVENTS)[number];

/**
 * How a payment's money comes in (docs/bank.md, "Funding by bank transfer"): `api`, the platform
 * reports the deposit (`POST …/deposit`); `bank_transfer`, the payer transfers it to the custody
 * account with the payment's reference and the service matches the bank's credit.
 */
export const FUNDINGS = ['api', 'bank_transfer'] as const;
export type Funding = (typeof FUNDINGS)[number];

/** The operator's custody account a payer transfers to: its IBAN, BIC and holder's name (not personal data). */
export interface CustodyAccount {
  iban: string;
  bic: string;
  name: string;
}

/** Actions a client may request over the API (create is the workflow start, not a transition). */
export const CLIENT_ACTIONS = ['deposit', 'approve', 'release', 'cancel', 'refund', 'dispute', 'resolve'] as const;
export type ClientAction = (typeof CLIENT_ACTIONS)[number];
/** Actions the workflow takes by itself, on its durable timers (`dispute_default`: a respondent's deadline lapsed). */
export type TimerAction = 'deadline' | 'auto_release' | 'dispute_default';

/**
 * A dispute's own actions (docs/concepts.md, "Disputes"), each a Workflow Update of the same name,
 * of the payment's latest dispute or of one milestone's.
 */
export const DISPUTE_ACTIONS = ['dispute_evidence', 'dispute_offer', 'dispute_accept', 'dispute_decline', 'dispute_withdraw'] as const;
export type DisputeAction = (typeof DISPUTE_ACTIONS)[number];
/** The bank's own step: funds received by transfer, matched by the payment's reference (docs/bank.md). */
export type BankAction = 'receive_funds';
export type TransitionAction = ClientAction | TimerAction | DisputeAction | BankAction;

/** Actions a client may request of one milestone (docs/concepts.md, "Deals paid in stages"). */
export const MILESTONE_ACTIONS = ['approve', 'release', 'refund', 'dispute', 'resolve'] as const satisfies readonly ClientAction[];
export type MilestoneAction = (typeof MILESTONE_ACTIONS)[number];

export const RESOLUTIONS = ['release', 'refund', 'split'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

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
  /** The money this step moved (minor units), when it moved any. */
  movement?: Movement;
  /** The milestone a milestone action (or its timer, on a payment with milestones) named. */
  milestoneId?: string;
  /** What the step did to each milestone it moved: the ledger entries' source (one per milestone that moved money). */
  changes?: MilestoneChange[];
  /** The dispute this step opened, changed or ended: its events end with `payment.dispute_updated`. */
  disputeId?: string;
  /** A `receive_funds` step: the bank's credit it took, and how much of it the payment took (the rest is an unapplied credit). */
  credit?: ReceivedCredit;
}

/** A credit booked at the bank as a payment's step records it: ids, amounts and the booking, nothing personal. */
export interface ReceivedCredit {
  /** The credit's id (`bc_…`), the same for every file that carries its entry. */
  id: string;
  amountMinor: bigint;
  /** What the payment took of it: at most what it still lacked. */
  appliedMinor: bigint;
  /** `YYYY-MM-DD`. */
  bookedOn: string;
  bankEntryRef: string | null;
  /** An unapplied credit applied to the payment (its money comes from `bank_credit:bc_…`), not a new booking of the bank. */
  applied?: true;
}

/**
 * The payment as its workflow holds it (its input, its state, its queries' answer) and as the rules
 * see it: ids, amounts and statuses, money in integer minor units. No personal field: those are the
 * service's, in PostgreSQL only (./paymentRecord.ts; docs/architecture.md, "Personal data").
 */
export interface PaymentState {
  id: string;
  accountId: string;
  livemode: boolean;
  amountMinor: bigint;
  /**
   * The currency's minor units when the amount was taken, kept with it so that an update of the
   * ISO table never rescales a stored amount.
   */
  amountExponent: number;
  currency: string;
  status: PaymentStatus;
  depositDeadline: string;
  autoReleaseAfterSeconds: number | null;
  createdAt: string;
  updatedAt: string;
  version: number;
  /** Money (docs/money.md), in minor units. */
  platformFeeMinor: bigint;
  heldMinor: bigint;
  releasedMinor: bigint;
  refundedMinor: bigint;
  feeCollectedMinor: bigint;
  /** The parts the amount is released in; one, of the whole amount, for a payment created without milestones. */
  milestones: MilestoneState[];
  /** Created with milestones: its steps also emit the milestone events (docs/webhooks.md). */
  staged: boolean;
  /** Every dispute opened, oldest first (absent until the first): see ./disputes.ts. */
  disputes?: DisputeState[];
  /** The recipient (`rcp_…`) it was created for, if it named one: an id, never personal data. */
  recipientId?: string | null;
  /** How its money comes in; absent (a payment created before funding by transfer) is `api`. */
  funding?: Funding;
  /** Received by bank transfer so far, in minor units, until it reaches the amount (docs/bank.md); absent is 0. */
  amountReceivedMinor?: bigint;
  /** A `bank_transfer` payment's custody account, as its payer was told at creation; null otherwise. */
  custody?: CustodyAccount | null;
}

export const DISPUTE_PARTIES = ['payer', 'recipient', 'platform'] as const;
export type DisputeParty = (typeof DISPUTE_PARTIES)[number];
/** The parties to a deal: they give evidence and make, accept or decline offers. */
export const DEAL_PARTIES = ['payer', 'recipient'] as const;
export type DealParty = (typeof DEAL_PARTIES)[number];
export const DISPUTE_STATUSES = ['awaiting_response', 'under_review', 'resolved', 'withdrawn'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
/** `expired`: still `proposed` when its dispute was decided (by a deadline, an agreement, a withdrawal or the platform). */
export const OFFER_STATUSES = ['proposed', 'accepted', 'declined', 'superseded', 'expired'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
export const DECIDERS = ['agreement', 'platform', 'default', 'withdrawal'] as const;
export type DecidedBy = (typeof DECIDERS)[number];

/**
 * A dispute as the workflow and the read model's row hold it: ids, amounts and keyed hashes. Its
 * free text (reason, evidence, offers' notes) is kept by the service under those hashes, never in
 * Temporal; reads fill it in (`DisputeWithTexts`, ./paymentRecord.ts; src/payments/disputeTexts.repository.ts).
 */
export interface DisputeState {
  id: string;
  /** The milestone whose route opened it; null for the payment's own `dispute`. */
  milestoneId: string | null;
  /** The milestones it covers, each with its status before the dispute (where a withdrawal returns it). */
  covers: { id: string; from: PaymentStatus }[];
  status: DisputeStatus;
  openedBy: DisputeParty;
  respondent: DealParty | null;
  /** The opening's reason: a keyed hash. */
  reason: string | null;
  amountMinor: bigint;
  respondBy: string | null;
  evidence: EvidenceState[];
  offers: OfferState[];
  resolution: DisputeResolution | null;
  openedAt: string;
}

export interface EvidenceState {
  id: string;
  party: DealParty;
  /** Keyed hash of the text. */
  hash: string;
  submittedAt: string;
}

export interface OfferState {
  id: string;
  proposedBy: DealParty;
  refundMinor: bigint;
  /** Keyed hash of the note, if any. */
  noteHash: string | null;
  status: OfferStatus;
  createdAt: string;
}

export interface DisputeResolution {
  refundMinor: bigint;
  releaseMinor: bigint;
  decidedBy: DecidedBy;
  at: string;
}

/** One milestone as the workflow holds it: money in minor units, as the payment's; no personal field. */
export interface MilestoneState {
  id: string;
  amountMinor: bigint;
  status: PaymentStatus;
  heldMinor: bigint;
  releasedMinor: bigint;
  refundedMinor: bigint;
  /** The share of the payment's fee its releases collected (docs/money.md). */
  feeCollectedMinor: bigint;
  autoReleaseAfterSeconds: number | null;
  /** When its auto-release fires, on the payment's clock; set while it is pending_release with one. */
  releaseAt: string | null;
  /** The recipient (`rcp_…`) its releases credit (docs/money.md), if the payment or the milestone named one. */
  recipientId?: string | null;
}

/** What one step did to one milestone: the history entry's record of it, the ledger entry's source. */
export interface MilestoneChange {
  id: string;
  from: PaymentStatus;
  to: PaymentStatus;
  movement?: Movement;
}
