import Router from '@koa/router';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ulid } from 'ulid';
import { CLIENT_ACTIONS, type PaymentState, type PaymentStatus, type Resolution, INITIAL_STATUS, creationEntry, isTerminal } from '../../domain/payment';
import { paymentView, summary } from '../../domain/paymentView';
import { AccountIdKey, LivemodeKey, PaymentAmountKey, PaymentCurrencyKey, PaymentStatusKey } from '../../domain/searchAttributes';
import { isCurrency, minorUnits, toMajor, toMinor } from '../../domain/money';
import { findPayment, listPaymentEvents, listPayments, projectPayment } from '../../db/payments';
import { INVALID_TRANSITION, type TransitionOutcome, getPaymentQuery, paymentWorkflow, transitionUpdate } from '../../workflows';
import { type AppDeps, type AppState, remainingMs, withTemporalDeadline } from '../context';
import { ApiError, fieldErrors, invalidRequest, notFound, parse, checkIdParam } from '../errors';
import { scopeOf } from '../middleware';
import { CreatePaymentRequest, ListPaymentsQuery, NoQuery, ResolveRequest, TransitionRequest } from '../schemas';

const DEFAULT_DEPOSIT_DEADLINE_SECONDS = 7 * 24 * 3600;

/** Runs recorded before the side-effects-as-activities patch answer the bare payment (already projected). */
function outcomeOf(result: TransitionOutcome | PaymentState): { payment: PaymentState; entry?: TransitionOutcome['entry'] } {
  return 'entry' in result ? result : { payment: result };
}

/** 409 naming the current status; `message` when the workflow said more (e.g. a timer was due). */
const invalidTransition = (action: string, status: PaymentStatus, message = `cannot ${action} a payment whose status is ${status}`) =>
  new ApiError(409, 'invalid_transition', message, { status });

/**
 * The create body: the schema, plus what it cannot express alone (currency, amount precision and
 * maximum, distinct parties). Every problem is reported at once, each naming its field.
 */
function parseCreate(input: unknown, maxAmount: number): { body: CreatePaymentRequest; currency: string; amountMinor: bigint } {
  const result = CreatePaymentRequest.safeParse(input);
  const details = result.success ? [] : fieldErrors(result.error);
  const failed = new Set(details.map((d) => d.field));
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const currency = typeof raw.currency === 'string' ? raw.currency.toUpperCase() : '';
  let amountMinor = 0n;
  if (!failed.has('currency') && !isCurrency(currency)) {
    details.push({ field: 'currency', message: `${String(raw.currency)} is not an ISO 4217 currency code` });
  } else if (!failed.has('currency') && !failed.has('amount')) {
    const parsed = toMinor(raw.amount as number, currency);
    if (!parsed.ok) details.push({ field: 'amount', message: parsed.message });
    else {
      const max = toMinor(maxAmount, currency);
      if (max.ok && parsed.minor > max.minor) details.push({ field: 'amount', message: `amount must not exceed ${maxAmount} ${currency}` });
      amountMinor = parsed.minor;
    }
  }
  // JSON.parse keeps a "__proto__" key, but an object built from it would drop it without a word.
  if (typeof raw.metadata === 'object' && raw.metadata !== null && Object.hasOwn(raw.metadata, '__proto__')) {
    details.push({ field: 'metadata.__proto__', message: '"__proto__" cannot be a metadata key' });
  }
  if (!failed.has('payer_email') && !failed.has('recipient_email') && String(raw.payer_email).toLowerCase() === String(raw.recipient_email).toLowerCase()) {
    details.push({ field: 'recipient_email', message: 'recipient_email must differ from payer_email' });
  }
  if (!result.success || details.length) throw invalidRequest(details);
  return { body: result.data, currency, amountMinor };
}

export function paymentRoutes({ db, temporal, config, logger }: AppDeps) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('payment'));

  router.post('/payments', async (ctx) => {
    const principal = ctx.state.principal!;
    const { body, currency, amountMinor } = parseCreate(ctx.state.body, config.PAYMENT_MAX_AMOUNT);
    const now = new Date();
    const deadlineSeconds = body.deposit_deadline_seconds ?? DEFAULT_DEPOSIT_DEADLINE_SECONDS;
    const payment: PaymentState = {
      id: `pay_${ctx.state.resourceId ?? ulid()}`,
      accountId: principal.accountId,
      livemode: principal.livemode,
      amountMinor: amountMinor.toString(),
      amountExponent: minorUnits(currency),
      currency,
      status: INITIAL_STATUS,
      payerEmail: body.payer_email.toLowerCase(),
      recipientEmail: body.recipient_email.toLowerCase(),
      description: body.description ?? null,
      metadata: body.metadata ?? {},
      depositDeadline: new Date(now.getTime() + deadlineSeconds * 1000).toISOString(),
      autoReleaseAfterSeconds: body.auto_release_after_seconds ?? null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      version: 1,
    };
    try {
      await withTemporalDeadline(temporal, () => temporal.workflow.start(paymentWorkflow, {
        // Tasks take milliseconds: a worker that died mid-task hands the payment on within seconds.
        workflowTaskTimeout: '2 seconds',
        workflowId: payment.id,
        // Never a second run under a payment id, even after the first has closed.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [{ payment, actor: principal.actor, requestId: ctx.state.requestId }],
        typedSearchAttributes: [
          { key: PaymentStatusKey, value: payment.status },
          { key: PaymentAmountKey, value: toMajor(payment.amountMinor, currency, payment.amountExponent) },
          { key: PaymentCurrencyKey, value: currency },
          { key: AccountIdKey, value: payment.accountId },
          { key: LivemodeKey, value: payment.livemode },
        ],
        staticSummary: `Payment ${summary(payment)}`,
        staticDetails: `account ${payment.accountId}, ${payment.livemode ? 'live' : 'test'} mode${payment.description ? `: ${payment.description}` : ''}`,
      }), remainingMs(ctx.state));
    } catch (err) {
      // A retry (same Idempotency-Key) of a create whose first attempt started the workflow but
      // failed on our side before answering: answer with that payment, never start a second.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || !ctx.state.resourceId) throw err;
      const existing = await withTemporalDeadline(temporal, () => temporal.workflow.getHandle(payment.id).query(getPaymentQuery), remainingMs(ctx.state))
        .catch(() => findPayment(db, scopeOf(principal), payment.id));
      if (!existing || existing.accountId !== principal.accountId || existing.livemode !== principal.livemode) throw err;
      ctx.status = 201;
      ctx.body = paymentView(existing);
      return;
    }
    // The workflow projects the same first version itself; writing it here as well lists the payment
    // the moment the client hears 201 (idempotent by version). The workflow exists from here on, so
    // a failed write is logged, not answered with an error that invites a second create.
    await projectPayment(db, payment, creationEntry(payment, principal.actor)).catch((err: unknown) =>
      logger.warn({ request_id: ctx.state.requestId, payment_id: payment.id, err }, 'read model write at create failed; the workflow will project it'),
    );
    ctx.status = 201;
    ctx.body = paymentView(payment);
  });

  router.get('/payments', async (ctx) => {
    const q = parse(ListPaymentsQuery, ctx.query, 'query');
    const result = await listPayments(db, scopeOf(ctx.state.principal!), {
      limit: q.limit,
      startingAfter: q.starting_after,
      status: q.status,
      createdGte: q.created_gte ? new Date(q.created_gte) : undefined,
      createdLte: q.created_lte ? new Date(q.created_lte) : undefined,
    });
    if ('cursorNotFound' in result) {
      throw new ApiError(400, 'invalid_request', 'starting_after is not a payment of this account', [{ field: 'starting_after', message: 'unknown payment id' }]);
    }
    ctx.body = { object: 'list', data: result.data.map(paymentView), has_more: result.hasMore };
  });

  /** The payment, or 404 across accounts and modes (never 403). */
  async function load(ctx: { state: AppState; params: Record<string, string> }): Promise<PaymentState> {
    const payment = await findPayment(db, scopeOf(ctx.state.principal!), ctx.params.id);
    if (!payment) throw notFound('payment');
    return payment;
  }

  // The read model holds only states the workflow made durable, written before each answer; no
  // workflow query (and no replay on a busy worker) stands between a client and its payment.
  router.get('/payments/:id', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = paymentView(await load(ctx));
  });

  router.get('/payments/:id/events', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    const row = await load(ctx);
    ctx.body = { object: 'list', data: await listPaymentEvents(db, row.id) };
  });

  for (const action of CLIENT_ACTIONS) {
    router.post(`/payments/:id/${action}`, async (ctx) => {
      const body: { reason?: string | null; resolution?: Resolution } =
        action === 'resolve' ? parse(ResolveRequest, ctx.state.body) : parse(TransitionRequest, ctx.state.body);
      const row = await load(ctx);
      const { retry, resourceId } = ctx.state;
      // A retry may be asking about its own first attempt, which may have made the payment final.
      if (isTerminal(row.status) && !retry) throw invalidTransition(action, row.status);
      const handle = temporal.workflow.getHandle(row.id);
      const within = <T>(fn: () => Promise<T>) => withTemporalDeadline(temporal, fn, remainingMs(ctx.state));
      let outcome: ReturnType<typeof outcomeOf>;
      try {
        const args = [{ action, resolution: body.resolution, reason: body.reason ?? null, actor: ctx.state.principal!.actor, requestId: ctx.state.requestId }] as const;
        // With an Idempotency-Key the update id is stable across retries: Temporal answers a retry of
        // an update that was applied (but whose answer was lost) with its first result.
        outcome = outcomeOf(await within(() => handle.executeUpdate(transitionUpdate, { args: [...args], updateId: resourceId })));
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === INVALID_TRANSITION) {
          // The workflow's own message: it names the status and, when a timer was due, why.
          const status = (err.cause.details?.[0] as PaymentStatus) ?? row.status;
          throw invalidTransition(action, status, err.cause.message);
        }
        // The run closed meanwhile (a timer or this very update, in an earlier attempt, made it final).
        if ((err as Error).name === 'WorkflowNotFoundError' || /already completed/i.test((err as Error).message)) {
          const first = retry && resourceId ? await within(() => handle.getUpdateHandle<PaymentState>(resourceId).result()).catch(() => undefined) : undefined;
          if (first) {
            ctx.body = paymentView(outcomeOf(first).payment);
            return;
          }
          const latest = await findPayment(db, scopeOf(ctx.state.principal!), row.id);
          throw invalidTransition(action, latest?.status ?? row.status);
        }
        throw err;
      }
      // Temporal has made this state durable: write it now so that a list or a read right after
      // this answer shows it. The workflow's own projection follows; both are idempotent by version.
      if (outcome.entry) {
        await projectPayment(db, outcome.payment, outcome.entry).catch((err: unknown) =>
          logger.warn({ request_id: ctx.state.requestId, payment_id: row.id, err }, 'read model write after transition failed; the workflow will project it'),
        );
      }
      ctx.body = paymentView(outcome.payment);
    });
  }

  return router;
}
