/**
 * The payment use cases: with ./paymentCreation.ts (its start) the only code that starts payment
 * workflows for clients, sends them updates and reads the payment repository. Routes parse, call
 * one of these and respond.
 */
import { type WorkflowHandle, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { reasonHashKey } from '../platform/config';
import { ulid } from 'ulid';
import { DISPUTE_OUT_OF_TURN, INVALID_AMOUNT, INVALID_TRANSITION, UNKNOWN_MILESTONE, UNKNOWN_OFFER } from '../platform/failures.rules';
import { type DisputeRefusal, planDispute } from './disputes.rules';
import { toMinor } from '../ledger/money.rules';
import {
  type ClientAction,
  type DisputeAction,
  type DisputeParty,
  type HistoryEntry,
  type MilestoneAction,
  type PaymentStatus,
  type Resolution,
} from './paymentTypes.rules';
import { isTerminal, nextActions, refusalMessage } from './payment.rules';
import type { PaymentDetails, PaymentRecord } from './paymentRecord.rules';
import { isReasonHash, reasonHash, withPersonal } from './personalData.rules';
import { type Scope, scopeOf } from '../tenants/tenancy.rules';
import { type ListFilter, findPayment, listPaymentEvents, listPayments } from './payments.repository';
import { findPersonal, findRedaction, saveReason } from './personalData.repository';
import { withDisputeTexts } from './disputeTexts.repository';
import {
  type ActionRequest,
  type DisputeMessage,
  type TransitionOutcome,
  actionUpdate,
  advanceClockUpdate,
  disputeUpdate,
  getHistoryQuery,
  getPaymentQuery,
  milestoneUpdate,
  paymentWorkflow,
} from '../platform/workflows.workflow';
import {
  DisputeOutOfTurn,
  FundedByBankTransfer,
  InvalidInput,
  InvalidTransition,
  NotFound,
  isClosedRun,
  pageOrRefuse,
} from '../platform/useCaseErrors';
import { withinDeadline } from '../platform/lib/temporalDeadline';
import { paymentCreation } from './paymentCreation.service';
import { type Call, type PaymentsDeps, paymentRun } from './paymentRun.service';

/** A history entry as the API shows it, or the payment's erasure (`action` "redact", no event; docs/operations.md). */
type HistoryRecord = (
  | Omit<HistoryEntry, 'milestoneId' | 'changes' | 'movement'>
  | (Omit<HistoryEntry, 'action' | 'event' | 'milestoneId' | 'changes' | 'movement'> & { action: 'redact'; event: null })
) & {
  milestone_id: string | null;
};

export interface TransitionCommand {
  action: ClientAction;
  /** A milestone action's milestone (`ms_…`). */
  milestoneId?: string;
  resolution?: Resolution;
  reason?: string | null;
  /** A partial refund's amount or a split's refund_amount, in major units as the client sent it. */
  amount?: { field: 'amount' | 'refund_amount'; value: number };
  /** A `dispute`'s opener and the respondent's time (default DISPUTE_RESPONSE_SECONDS). */
  dispute?: { openedBy: DisputeParty; respondWithinSeconds?: number };
}

/** A party's dispute action (docs/concepts.md, "Disputes"), of the payment's latest dispute or a milestone's. */
export interface DisputeCommand {
  action: DisputeAction;
  milestoneId?: string;
  party: DisputeParty;
  /** Evidence's text, or an offer's note: kept here, never sent to Temporal. */
  text?: string | null;
  /** An offer's refund_amount, in major units as the client sent it. */
  refundAmount?: number;
  /** The offer accepted or declined. */
  offerId?: string;
}

/** A dispute's refusal as the use cases' error: the same words whether the workflow or the read model refused. */
function disputeError(plan: DisputeRefusal, milestoneId?: string): Error {
  switch (plan.reason) {
    case 'dispute_out_of_turn':
      return new DisputeOutOfTurn(plan.disputeStatus, plan.disputeId, plan.message, milestoneId);
    case 'invalid_transition':
      return new InvalidTransition(plan.status, plan.message, { allowed: plan.allowed, milestoneId });
    case 'invalid_amount':
      return new InvalidInput([{ field: plan.field, message: plan.message }]);
    case 'unknown_milestone':
      return new NotFound('milestone');
    case 'unknown_offer':
      return new NotFound('offer', plan.message);
  }
}

/** A client's amount in the payment's own minor units, or a 400 naming the field. */
function amountOf(payment: Pick<PaymentRecord, 'currency' | 'amountExponent'>, amount: TransitionCommand['amount']): bigint | undefined {
  if (!amount) return undefined;
  const parsed = toMinor(amount.value, payment.currency, { field: amount.field, exponent: payment.amountExponent });
  if (!parsed.ok) throw new InvalidInput([{ field: amount.field, message: parsed.message }]);
  return parsed.minor;
}

/** A payment id as creates make them: only such an id is looked for among the workflows. */
const PAYMENT_ID = /^pay_[0-9A-Za-z]{1,64}$/;

export function paymentsService(deps: PaymentsDeps) {
  const { db, temporal, config } = deps;
  const { within } = paymentRun(deps);

  /**
   * The run of a payment of this account and mode whose read-model row is missing, or undefined. A
   * payment answered 201 is never 404 afterwards: its create answers once the row is committed, and
   * should the creation's publication have failed for good (or a create's retry answered from a run
   * whose row is not yet written), its workflow answers for it (docs/api.md, "A payment before its row").
   */
  async function runOf(scope: Scope, id: string): Promise<{ handle: WorkflowHandle; state: PaymentRecord } | undefined> {
    if (!PAYMENT_ID.test(id)) return undefined;
    const handle = temporal.workflow.getHandle(id);
    const ran = await withinDeadline(temporal, async () => {
      const described = await handle.describe();
      if (described.type !== paymentWorkflow.name) return undefined;
      return handle.query(getPaymentQuery);
    }).catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
    if (!ran || ran.accountId !== scope.accountId || ran.livemode !== scope.livemode) return undefined;
    return { handle, state: withPersonal(ran, await findPersonal(db, id)) };
  }

  /** The payment (its row, else its workflow's state), or NotFound across accounts and modes. */
  async function load(scope: Scope, id: string): Promise<PaymentRecord> {
    const payment = (await findPayment(db, scope, id)) ?? (await runOf(scope, id))?.state;
    if (!payment) throw new NotFound('payment');
    return payment;
  }

  /** Its transitions from its workflow, a client's reason shown as the text kept for its hash (as the projection writes it). */
  async function historyOfRun(id: string, handle: WorkflowHandle): Promise<HistoryEntry[]> {
    const entries = await withinDeadline(temporal, () => handle.query(getHistoryQuery));
    const hashes = entries.map((e) => e.reason).filter((r): r is string => isReasonHash(r));
    const texts = new Map<string, string>(
      hashes.length
        ? (await db('payment_reasons').where({ payment_id: id }).whereIn('reason_hash', hashes)).map((r) => [r.reason_hash, r.reason])
        : [],
    );
    return entries.map((e) => (isReasonHash(e.reason) ? { ...e, reason: texts.get(e.reason) ?? e.reason } : e));
  }

  /** A retried update's first answer, which Temporal keeps by its id after the run closed; undefined when it was not applied. */
  async function firstAnswer(call: Call, handle: WorkflowHandle, current: PaymentRecord) {
    const updateId = call.retry ? call.resourceId : undefined;
    if (!updateId) return undefined;
    const first = await within(call, () => handle.getUpdateHandle<TransitionOutcome>(updateId).result()).catch(() => undefined);
    return first && withDisputeTexts(db, withPersonal(first.payment, current));
  }

  return {
    ...paymentCreation(deps),

    /** From the read model: it holds only states the workflows made durable, no replay needed; a dispute's texts from where they are kept. */
    get: async (scope: Scope, id: string) => withDisputeTexts(db, await load(scope, id)),

    async list(scope: Scope, filter: ListFilter) {
      const page = pageOrRefuse(await listPayments(db, scope, filter), 'not a payment of this account and mode');
      return { ...page, data: await Promise.all(page.data.map((p) => withDisputeTexts(db, p))) };
    },

    /** Its transitions, then its erasure if it was erased: who asked, when; it moves no status and no money. */
    async history(scope: Scope, id: string): Promise<HistoryRecord[]> {
      const row = await findPayment(db, scope, id);
      const run = row ? undefined : await runOf(scope, id);
      const payment = row ?? run?.state;
      if (!payment) throw new NotFound('payment');
      const [stored, redaction] = await Promise.all([
        run ? historyOfRun(id, run.handle) : listPaymentEvents(db, id),
        findRedaction(db, id),
      ]);
      const entries = stored.map(({ milestoneId, ...e }) => ({ ...e, milestone_id: milestoneId ?? null }));
      if (!redaction) return entries;
      const at = { seq: payment.version, action: 'redact', from: payment.status, to: payment.status, event: null, reason: null } as const;
      return [...entries, { ...at, actor: redaction.actor, at: redaction.at, milestone_id: null }];
    },

    /** A client's transition, as a Workflow Update whose id is stable across the request's retries. */
    async transition(call: Call, id: string, command: TransitionCommand): Promise<PaymentDetails> {
      const current = await load(scopeOf(call.principal), id);
      const { action, milestoneId } = command;
      const milestone = milestoneId === undefined ? undefined : current.milestones.find((m) => m.id === milestoneId);
      if (milestoneId !== undefined && !milestone) throw new NotFound('milestone');
      const status = milestone?.status ?? current.status;
      const of = milestone ? 'milestone' : 'payment';
      const refusal = (from: PaymentStatus, message = refusalMessage(action, from, of), allowed?: ClientAction[]) =>
        new InvalidTransition(from, message, { allowed, milestoneId });
      // A retry may be asking about its own first attempt, which may have made the payment final.
      if (isTerminal(status) && !call.retry) throw refusal(status);
      // Its deposit is the bank's booked credit, matched by reference (docs/bank.md), never a client's report.
      if (action === 'deposit' && current.funding === 'bank_transfer') throw new FundedByBankTransfer(current.id);
      const handle = temporal.workflow.getHandle(current.id);
      let outcome: TransitionOutcome;
      // The reason's text stays here; the workflow carries its keyed hash (docs/architecture.md).
      const reason = command.reason ? reasonHash(reasonHashKey(config), command.reason) : null;
      if (reason) await saveReason(db, current.id, reason, command.reason!);
      try {
        const request: ActionRequest = {
          resolution: command.resolution,
          amountMinor: amountOf(current, command.amount),
          reason,
          actor: call.principal.actor,
          requestId: call.requestId,
          ...(action === 'dispute'
            ? {
                dispute: {
                  id: `dp_${call.resourceId ?? ulid()}`,
                  openedBy: command.dispute?.openedBy ?? 'platform',
                  respondWithinSeconds: command.dispute?.respondWithinSeconds ?? config.DISPUTE_RESPONSE_SECONDS,
                },
              }
            : {}),
        };
        // Temporal answers a retry of an update that was applied (its answer lost) with its first result.
        outcome = await within(call, () =>
          milestoneId === undefined
            ? handle.executeUpdate(actionUpdate(action), { args: [request], updateId: call.resourceId })
            : handle.executeUpdate(milestoneUpdate(action as MilestoneAction), {
                args: [{ ...request, milestoneId }],
                updateId: call.resourceId,
              }),
        );
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === INVALID_TRANSITION) {
          // The workflow's own message and next steps: it names the status and, when a timer was due, why.
          const [refusedFrom, allowed] = (err.cause.details ?? []) as [PaymentStatus?, ClientAction[]?];
          throw refusal(refusedFrom ?? status, err.cause.message, allowed);
        }
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === UNKNOWN_MILESTONE) {
          throw new NotFound('milestone');
        }
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === INVALID_AMOUNT) {
          const field = err.cause.details?.[0];
          throw new InvalidInput([{ field: typeof field === 'string' ? field : 'amount', message: err.cause.message }]);
        }
        if (!isClosedRun(err)) throw err;
        // The run closed meanwhile: a timer, or this very update in an earlier attempt, made it final.
        const first = await firstAnswer(call, handle, current);
        if (first) return first;
        const latest = await findPayment(db, scopeOf(call.principal), current.id);
        const now = milestoneId === undefined ? latest?.status : latest?.milestones.find((m) => m.id === milestoneId)?.status;
        throw refusal(now ?? status, undefined, latest && nextActions(latest, milestoneId));
      }
      // The update answered once its publication committed: the row, ledger and trail show it already.
      return withDisputeTexts(db, withPersonal(outcome.payment, current));
    },

    /**
     * A party's dispute action, as its Workflow Update. Evidence's text and an offer's note are kept
     * here under their keyed hash first; the workflow carries the hash (docs/architecture.md).
     */
    async disputeAction(call: Call, id: string, command: DisputeCommand): Promise<PaymentDetails> {
      const current = await load(scopeOf(call.principal), id);
      const { action, milestoneId } = command;
      if (milestoneId !== undefined && !current.milestones.some((m) => m.id === milestoneId)) throw new NotFound('milestone');
      const request: DisputeMessage = {
        ...(milestoneId === undefined ? {} : { milestoneId }),
        party: command.party,
        actor: call.principal.actor,
        requestId: call.requestId,
      };
      if (action === 'dispute_evidence' || action === 'dispute_offer') {
        request.itemId = `${action === 'dispute_evidence' ? 'ev' : 'of'}_${call.resourceId ?? ulid()}`;
        request.hash = command.text ? reasonHash(reasonHashKey(config), command.text) : null;
      }
      if (action === 'dispute_offer') {
        const parsed = toMinor(command.refundAmount!, current.currency, {
          field: 'refund_amount',
          allowZero: true,
          exponent: current.amountExponent,
        });
        if (!parsed.ok) throw new InvalidInput([{ field: 'refund_amount', message: parsed.message }]);
        request.refundMinor = parsed.minor;
      }
      if (action === 'dispute_accept' || action === 'dispute_decline') request.itemId = command.offerId;
      // A finished payment's run has closed: its read model answers for it, with the workflow's own rules.
      if (isTerminal(current.status) && !call.retry) {
        const refused = planDispute(current, { ...request, action, refundMinor: undefined }, Date.now());
        throw refused.ok
          ? new InvalidTransition(current.status, refusalMessage(action, current.status))
          : disputeError(refused, milestoneId);
      }
      if (request.hash) await saveReason(db, current.id, request.hash, command.text!);
      const handle = temporal.workflow.getHandle(current.id);
      let outcome: TransitionOutcome;
      try {
        outcome = await within(call, () => handle.executeUpdate(disputeUpdate(action), { args: [request], updateId: call.resourceId }));
      } catch (err) {
        const cause = err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause : undefined;
        if (cause?.type === DISPUTE_OUT_OF_TURN) {
          const [status, disputeId] = (cause.details ?? []) as [string, string];
          throw new DisputeOutOfTurn(status, disputeId, cause.message, milestoneId);
        }
        if (cause?.type === INVALID_TRANSITION) {
          const [refusedFrom, allowed] = (cause.details ?? []) as [PaymentStatus, ClientAction[]?];
          throw new InvalidTransition(refusedFrom, cause.message, { allowed, milestoneId });
        }
        if (cause?.type === INVALID_AMOUNT) throw new InvalidInput([{ field: 'refund_amount', message: cause.message }]);
        if (cause?.type === UNKNOWN_OFFER) throw new NotFound('offer', cause.message);
        if (cause?.type === UNKNOWN_MILESTONE) throw new NotFound('milestone');
        if (!isClosedRun(err)) throw err;
        const first = await firstAnswer(call, handle, current);
        if (first) return first;
        // The run closed meanwhile (the dispute ended another way): the read model's dispute answers.
        const latest = (await findPayment(db, scopeOf(call.principal), current.id)) ?? current;
        const refused = planDispute(latest, { ...request, action, refundMinor: undefined }, Date.now());
        throw refused.ok ? new InvalidTransition(latest.status, refusalMessage(action, latest.status)) : disputeError(refused, milestoneId);
      }
      // The update answered once its publication committed: the row, ledger and trail show it already.
      return withDisputeTexts(db, withPersonal(outcome.payment, current));
    },

    /** Test clocks: a test-mode payment's clock moves forward; due timers fire. Live: not found. */
    async advanceClock(call: Call, id: string, seconds: number): Promise<PaymentDetails> {
      if (call.principal.livemode) throw new NotFound('test-mode payment');
      const current = await load(scopeOf(call.principal), id);
      if (isTerminal(current.status)) return withDisputeTexts(db, current);
      // Answered once every step the move fired is published.
      const { payment } = await within(call, () =>
        temporal.workflow.getHandle(current.id).executeUpdate(advanceClockUpdate, { args: [{ seconds }], updateId: call.resourceId }),
      );
      return withDisputeTexts(db, withPersonal(payment, current));
    },
  };
}

export type PaymentsService = ReturnType<typeof paymentsService>;
