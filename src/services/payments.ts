/**
 * The payment use cases: the only code that starts payment workflows, sends them updates and
 * reads the payment repository. Routes parse, call one of these and respond.
 */
import { INVALID_AMOUNT, INVALID_TRANSITION, UNKNOWN_MILESTONE } from '../domain/failures';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, type SearchAttributePair } from '@temporalio/common';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { type Config, reasonHashKey } from '../config';
import { minorUnits, toMajor, toMinor } from '../domain/money';
import {
  type ClientAction,
  type HistoryEntry,
  type MilestoneAction,
  type MilestoneState,
  type PaymentState,
  type PaymentStatus,
  type Resolution,
  INITIAL_STATUS,
  creationEntry,
  isTerminal,
  nextActions,
  refusalMessage,
  wholeMilestone,
} from '../domain/payment';
import { summary } from '../domain/paymentSummary';
import { personalOf, reasonHash, withPersonal, withoutPersonal } from '../domain/personal';
import {
  AccountIdKey,
  LivemodeKey,
  NextDeadlineKey,
  PaymentAmountKey,
  PaymentCurrencyKey,
  PaymentStatusKey,
  type RecordKind,
  RecordKindKey,
} from '../domain/searchAttributes';
import { type Principal, type Scope, scopeOf } from '../domain/tenancy';
import { type ListFilter, findPayment, listPaymentEvents, listPayments } from '../db/payments';
import { findRedaction, savePersonal, saveReason } from '../db/personal';
import { projectPayment } from '../db/projection';
import type { Logger } from '../lib/logger';
import {
  type ActionRequest,
  type TransitionOutcome,
  actionUpdate,
  advanceClockUpdate,
  getPaymentQuery,
  milestoneUpdate,
  paymentWorkflow,
} from '../workflows';
import { withinDeadline } from './deadline';
import { InvalidInput, InvalidTransition, NotFound, isClosedRun, pageOrRefuse } from './errors';

/** A history entry as the API shows it, or the payment's erasure (`action` "redact", no event; docs/operations.md). */
type HistoryRecord = (
  | Omit<HistoryEntry, 'milestoneId' | 'changes' | 'movement'>
  | (Omit<HistoryEntry, 'action' | 'event' | 'milestoneId' | 'changes' | 'movement'> & { action: 'redact'; event: null })
) & {
  milestone_id: string | null;
};

const DEFAULT_DEPOSIT_DEADLINE_SECONDS = 7 * 24 * 3600;

interface PaymentsDeps {
  db: Knex;
  temporal: Client;
  config: Config;
  logger: Logger;
}

/** One request's identity, idempotency and deadline, as the use cases need them. */
export interface Call {
  principal: Principal;
  requestId: string;
  /** With an Idempotency-Key: the id for what this request creates or sends, the same on every retry. */
  resourceId?: string;
  /** The key's earlier attempt may have done the work already. */
  retry?: boolean;
  /** When the answer is due (ms since epoch): one deadline for every Temporal call of the request. */
  deadline?: number;
}

export interface NewPayment {
  amountMinor: bigint;
  /** 0 ≤ fee ≤ amount (docs/money.md). */
  platformFeeMinor?: bigint;
  currency: string;
  payerEmail: string;
  recipientEmail: string;
  description?: string | null;
  metadata?: Record<string, string>;
  depositDeadlineSeconds?: number;
  autoReleaseAfterSeconds?: number;
  /** The parts the amount is released in (docs/concepts.md); their amounts sum to `amountMinor`. */
  milestones?: NewMilestone[];
}

export interface NewMilestone {
  reference?: string;
  description?: string | null;
  amountMinor: bigint;
  recipientEmail?: string;
  autoReleaseAfterSeconds?: number;
}

export interface TransitionCommand {
  action: ClientAction;
  /** A milestone action's milestone (`ms_…`). */
  milestoneId?: string;
  resolution?: Resolution;
  reason?: string | null;
  /** A partial refund's amount or a split's refund_amount, in major units as the client sent it. */
  amount?: { field: 'amount' | 'refund_amount'; value: number };
}

/** A new payment's money: its fee, nothing held yet. */
const moneyFields = (platformFee: bigint) => ({
  platformFeeMinor: platformFee.toString(),
  heldMinor: '0',
  releasedMinor: '0',
  refundedMinor: '0',
  feeCollectedMinor: '0',
});

/** A client's amount in the payment's own minor units, or a 400 naming the field. */
function amountOf(payment: PaymentState, amount: TransitionCommand['amount']): string | undefined {
  if (!amount) return undefined;
  const parsed = toMinor(amount.value, payment.currency, { field: amount.field, exponent: payment.amountExponent });
  if (!parsed.ok) throw new InvalidInput([{ field: amount.field, message: parsed.message }]);
  return parsed.minor.toString();
}

/** A new payment's milestones: those asked for, or one of the whole amount (docs/concepts.md). */
function newMilestones(payment: Omit<PaymentState, 'milestones' | 'staged'>, asked: NewMilestone[] | undefined): MilestoneState[] {
  if (!asked) return [wholeMilestone(payment)];
  return asked.map((m) => ({
    ...wholeMilestone(payment),
    id: `ms_${ulid()}`,
    amountMinor: m.amountMinor.toString(),
    autoReleaseAfterSeconds: m.autoReleaseAfterSeconds ?? payment.autoReleaseAfterSeconds,
    reference: m.reference ?? null,
    description: m.description ?? null,
    recipientEmail: m.recipientEmail?.toLowerCase() ?? payment.recipientEmail,
  }));
}

/**
 * What every run of a payment starts with, the first or one `npm run repair` starts: its id is the
 * payment id, its search attributes show the payment as it is now.
 */
export function paymentRunOptions(config: Config, payment: PaymentState, nextDeadline: Date | null) {
  return {
    workflowId: payment.id,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    // Tasks take milliseconds: a worker that died mid-task hands the payment on within seconds, and
    // a burst on a busy machine still fits (every timeout is work done twice).
    workflowTaskTimeout: '5 seconds' as const,
    typedSearchAttributes: [
      { key: RecordKindKey, value: 'payment' satisfies RecordKind },
      { key: PaymentStatusKey, value: payment.status },
      { key: PaymentAmountKey, value: toMajor(payment.amountMinor, payment.currency, payment.amountExponent) },
      { key: PaymentCurrencyKey, value: payment.currency },
      { key: AccountIdKey, value: payment.accountId },
      { key: LivemodeKey, value: payment.livemode },
      ...(nextDeadline ? [{ key: NextDeadlineKey, value: nextDeadline }] : []),
    ] as SearchAttributePair[],
    // Ids and amounts only: personal data never enters Temporal (docs/architecture.md).
    staticSummary: `Payment ${summary(payment)}`,
    staticDetails: `account ${payment.accountId}, ${payment.livemode ? 'live' : 'test'} mode`,
  };
}

export function paymentsService({ db, temporal, config, logger }: PaymentsDeps) {
  const within = <T>(call: Call, fn: () => Promise<T>) => withinDeadline(temporal, fn, call.deadline);

  /** The payment, or NotFound across accounts and modes. */
  async function load(scope: Scope, id: string): Promise<PaymentState> {
    const payment = await findPayment(db, scope, id);
    if (!payment) throw new NotFound('payment');
    return payment;
  }

  /**
   * Temporal has made this state durable: write it now, so that a read or a list right after the
   * answer shows it. The workflow's own projection follows; both are idempotent by version.
   */
  async function showDurable(call: Call, payment: PaymentState, entry: HistoryEntry | undefined): Promise<void> {
    if (!entry) return;
    await projectPayment(db, payment, entry, reasonHashKey(config)).catch((err: unknown) =>
      logger.warn({ request_id: call.requestId, payment_id: payment.id, err }, 'read model write failed; the workflow will project it'),
    );
  }

  return {
    /** Start the payment's workflow; its id is the payment id, never reused. */
    async create(call: Call, input: NewPayment): Promise<PaymentState> {
      const { principal } = call;
      const now = new Date();
      const fields = {
        id: `pay_${call.resourceId ?? ulid()}`,
        accountId: principal.accountId,
        livemode: principal.livemode,
        amountMinor: input.amountMinor.toString(),
        amountExponent: minorUnits(input.currency),
        currency: input.currency,
        status: INITIAL_STATUS,
        payerEmail: input.payerEmail.toLowerCase(),
        recipientEmail: input.recipientEmail.toLowerCase(),
        description: input.description ?? null,
        metadata: input.metadata ?? {},
        depositDeadline: new Date(now.getTime() + (input.depositDeadlineSeconds ?? DEFAULT_DEPOSIT_DEADLINE_SECONDS) * 1000).toISOString(),
        autoReleaseAfterSeconds: input.autoReleaseAfterSeconds ?? null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        version: 1,
        ...moneyFields(input.platformFeeMinor ?? 0n),
      };
      const payment: PaymentState = {
        ...fields,
        milestones: newMilestones(fields, input.milestones),
        staged: input.milestones !== undefined,
      };
      // Kept here before the workflow starts, which carries ids and amounts only (docs/architecture.md).
      await savePersonal(db, payment.id, personalOf(payment));
      try {
        await within(call, () =>
          temporal.workflow.start(paymentWorkflow, {
            ...paymentRunOptions(config, payment, new Date(payment.depositDeadline)),
            // Never a second run under a payment id, even after the first has closed.
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            args: [{ payment: withoutPersonal(payment), actor: principal.actor, requestId: call.requestId }],
          }),
        );
      } catch (err) {
        // A retry (same Idempotency-Key) of a create whose first attempt started the workflow but
        // failed on our side before answering: answer with that payment, never start a second.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError) || !call.resourceId) throw err;
        const existing = await within(call, () => temporal.workflow.getHandle(payment.id).query(getPaymentQuery))
          .then(async (state) => withPersonal(state, (await findPayment(db, scopeOf(principal), payment.id)) ?? payment))
          .catch(() => findPayment(db, scopeOf(principal), payment.id));
        if (!existing || existing.accountId !== principal.accountId || existing.livemode !== principal.livemode) throw err;
        return existing;
      }
      // Lists the payment the moment the client hears 201. The workflow exists from here on, so a
      // failed write is logged, not answered with an error that invites a second create.
      await showDurable(call, payment, creationEntry(payment, principal.actor));
      return payment;
    },

    /** From the read model: it holds only states the workflows made durable, no replay needed. */
    get: (scope: Scope, id: string) => load(scope, id),

    async list(scope: Scope, filter: ListFilter) {
      return pageOrRefuse(await listPayments(db, scope, filter), 'not a payment of this account and mode');
    },

    /** Its transitions, then its erasure if it was erased: who asked, when; it moves no status and no money. */
    async history(scope: Scope, id: string): Promise<HistoryRecord[]> {
      const payment = await load(scope, id);
      const [stored, redaction] = await Promise.all([listPaymentEvents(db, id), findRedaction(db, id)]);
      const entries = stored.map(({ milestoneId, ...e }) => ({ ...e, milestone_id: milestoneId ?? null }));
      if (!redaction) return entries;
      const at = { seq: payment.version, action: 'redact', from: payment.status, to: payment.status, event: null, reason: null } as const;
      return [...entries, { ...at, actor: redaction.actor, at: redaction.at, milestone_id: null }];
    },

    /** A client's transition, as a Workflow Update whose id is stable across the request's retries. */
    async transition(call: Call, id: string, command: TransitionCommand): Promise<PaymentState> {
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
        const first =
          call.retry && call.resourceId
            ? await within(call, () => handle.getUpdateHandle<TransitionOutcome>(call.resourceId!).result()).catch(() => undefined)
            : undefined;
        if (first) return withPersonal(first.payment, current);
        const latest = await findPayment(db, scopeOf(call.principal), current.id);
        const now = milestoneId === undefined ? latest?.status : latest?.milestones.find((m) => m.id === milestoneId)?.status;
        throw refusal(now ?? status, undefined, latest && nextActions(latest, milestoneId));
      }
      const payment = withPersonal(outcome.payment, current);
      await showDurable(call, payment, outcome.entry);
      return payment;
    },

    /** Test clocks: a test-mode payment's clock moves forward; due timers fire. Live: not found. */
    async advanceClock(call: Call, id: string, seconds: number): Promise<PaymentState> {
      if (call.principal.livemode) throw new NotFound('test-mode payment');
      const current = await load(scopeOf(call.principal), id);
      if (isTerminal(current.status)) return current;
      const { payment, entry } = await within(call, () =>
        temporal.workflow.getHandle(current.id).executeUpdate(advanceClockUpdate, { args: [{ seconds }], updateId: call.resourceId }),
      );
      await showDurable(call, withPersonal(payment, current), entry);
      return withPersonal(payment, current);
    },
  };
}

export type PaymentsService = ReturnType<typeof paymentsService>;
