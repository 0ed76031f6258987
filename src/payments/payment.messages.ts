/**
 * The payment workflow's messages (./payment.ts): its input, the per-action updates, the
 * `transition` signal and the queries, with what each carries and answers. The services send them;
 * the workflow sets their handlers.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ClientAction,
  DisputeAction,
  DisputeParty,
  HistoryEntry,
  MilestoneAction,
  PaymentState,
  Resolution,
} from './paymentTypes.rules';
import type { FundsMessage } from './bankFunding.rules';

export interface PaymentWorkflowInput {
  /** Ids and amounts, no personal field (an input recorded before may hold some: passed on untouched, never read). */
  payment: PaymentState;
  /** API key id or user id that created the payment. */
  actor: string;
  requestId?: string;
  /**
   * A run started by `npm run repair` after an operator's terminate or reset: the payment as the
   * read model and ledger hold it (its milestones' auto-release times included), and its history.
   * Its creation is not published again (docs/operations.md).
   */
  resumed?: { history: HistoryEntry[] };
}

/** What the `transition` signal carries: the action and its arguments, who asks and the request. */
export interface TransitionMessage {
  action: ClientAction;
  resolution?: Resolution;
  /** A partial refund's amount, or a split's refund_amount, in minor units. */
  amountMinor?: bigint;
  /** The milestone a milestone action is for. */
  milestoneId?: string;
  reason?: string | null;
  actor: string;
  requestId?: string;
  /** A `dispute`: who opens it and how long the respondent has; its id is the API's (docs/concepts.md, "Disputes"). */
  dispute?: { id: string; openedBy: DisputeParty; respondWithinSeconds: number };
}

/** A party's dispute action (`dispute_evidence`, …), as its update carries it: texts only as keyed hashes. */
export interface DisputeMessage {
  /** The milestone whose dispute it is; none for the payment's latest. */
  milestoneId?: string;
  party: DisputeParty;
  /** The new evidence's or offer's id, or the offer answered. */
  itemId?: string;
  /** Evidence: its text's keyed hash; an offer: its note's, or null. */
  hash?: string | null;
  /** An offer's refund_amount, in minor units. */
  refundMinor?: bigint;
  actor: string;
  requestId?: string;
}

/** What a transition update answers: the payment and the history entry the transition wrote. */
export interface TransitionOutcome {
  payment: PaymentState;
  entry: HistoryEntry;
}

/** A client's request, as one of the per-action updates carries it (the action is the update's name). */
export type ActionRequest = Omit<TransitionMessage, 'action'>;

/**
 * The validated, synchronous way in, one Workflow Update per action (`deposit`, `refund`, …), so
 * that the history in the Temporal UI reads as the payment's story. The caller gets the new payment
 * or a refusal.
 */
export const actionUpdate = (action: ClientAction) => defineUpdate<TransitionOutcome, [ActionRequest]>(action);
/** One milestone's action (`milestone_approve`, …): the request names the milestone (docs/concepts.md). */
export const milestoneUpdate = (action: MilestoneAction) =>
  defineUpdate<TransitionOutcome, [ActionRequest & { milestoneId: string }]>(`milestone_${action}`);
/** A dispute's own actions, one update each (docs/concepts.md, "Disputes"). */
export const disputeUpdate = (action: DisputeAction) => defineUpdate<TransitionOutcome, [DisputeMessage]>(action);
/** The same transitions, fire-and-forget (an illegal one is logged and ignored). */
export const transitionSignal = defineSignal<[TransitionMessage]>('transition');
/**
 * Test clocks (test mode only): move this payment's clock forward, so that its deposit deadline or
 * auto-release comes due now, with the normal history entry and webhook. Time elsewhere is untouched.
 */
export const advanceClockUpdate = defineUpdate<{ payment: PaymentState; entry?: HistoryEntry }, [{ seconds: number }]>('advanceClock');
/**
 * The create's update, sent with the start (update-with-start): answers the payment once its
 * creation's publication is committed, so the list, the ledger and the trail show it (docs/architecture.md).
 */
export const createdUpdate = defineUpdate<PaymentState>('created');
/**
 * A credit the bank booked with the payment's reference (docs/bank.md, "Funding by bank transfer"),
 * sent by the bank inbox's matching: once per credit id. The answer says what the payment took of it;
 * the rest is an unapplied credit. A payment that cannot take it refuses it (`InvalidTransition`).
 */
export const receiveFundsUpdate = defineUpdate<FundsOutcome, [FundsMessage]>('receiveFunds');

/** What `receiveFunds` answers: the payment, the step it made (none for a credit taken before), and what it took of the credit. */
export interface FundsOutcome {
  payment: PaymentState;
  entry?: HistoryEntry;
  appliedMinor: bigint;
}

export const getPaymentQuery = defineQuery<PaymentState>('getPayment');
export const getHistoryQuery = defineQuery<HistoryEntry[]>('getHistory');
