import { CLIENT_ACTIONS, TRANSITIONS, allowedFrom, type ClientAction } from '../../domain/payment';
import { isCurrency, toMinor } from '../../domain/money';
import { paymentView } from '../../domain/paymentView';
import { scopeOf } from '../../domain/tenancy';
import type { NewPayment, PaymentsService, TransitionCommand } from '../../services/payments';
import { callOf } from '../context';
import { invalidRequest } from '../errors';
import { fieldErrors, parse } from '../parse';
import { Routes } from '../registry';
import {
  CreatePaymentRequest,
  ListPaymentsQuery,
  Payment,
  PaymentHistory,
  PaymentList,
  RefundRequest,
  ResolveRequest,
  TransitionRequest,
  pageRequestOf,
} from '../schemas';

/**
 * The create body: the schema, plus what it cannot express alone (currency, amount precision and
 * maximum, distinct parties, a `__proto__` key). Every problem is reported at once, each naming its field.
 */
function parseCreate(input: unknown, maxAmount: number): NewPayment {
  const result = CreatePaymentRequest.safeParse(input);
  const details = result.success ? [] : fieldErrors(result.error);
  const failed = new Set(details.map((d) => d.field));
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const currency = typeof raw.currency === 'string' ? raw.currency.toUpperCase() : '';
  let amountMinor = 0n;
  let platformFeeMinor = 0n;
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
    if (raw.platform_fee !== undefined && !failed.has('platform_fee')) {
      const fee = toMinor(raw.platform_fee as number, currency, { field: 'platform_fee', allowZero: true });
      if (!fee.ok) details.push({ field: 'platform_fee', message: fee.message });
      else if (parsed.ok && fee.minor > parsed.minor)
        details.push({ field: 'platform_fee', message: 'platform_fee must not exceed amount' });
      else platformFeeMinor = fee.minor;
    }
  }
  // JSON.parse keeps a "__proto__" key, but an object built from it would drop it without a word.
  if (typeof raw.metadata === 'object' && raw.metadata !== null && Object.hasOwn(raw.metadata, '__proto__')) {
    details.push({ field: 'metadata.__proto__', message: '"__proto__" cannot be a metadata key' });
  }
  if (
    !failed.has('payer_email') &&
    !failed.has('recipient_email') &&
    String(raw.payer_email).toLowerCase() === String(raw.recipient_email).toLowerCase()
  ) {
    details.push({ field: 'recipient_email', message: 'recipient_email must differ from payer_email' });
  }
  if (!result.success || details.length) throw invalidRequest(details);
  const body = result.data;
  return {
    amountMinor,
    platformFeeMinor,
    currency,
    payerEmail: body.payer_email,
    recipientEmail: body.recipient_email,
    description: body.description,
    metadata: body.metadata,
    depositDeadlineSeconds: body.deposit_deadline_seconds,
    autoReleaseAfterSeconds: body.auto_release_after_seconds,
  };
}

/** A transition's body: refund may name an amount, resolve a resolution (and a split's refund_amount). */
function transitionCommand(action: ClientAction, body: unknown): TransitionCommand {
  if (action === 'refund') {
    const { reason, amount } = parse(RefundRequest, body);
    return { action, reason, amount: amount === undefined ? undefined : { field: 'amount', value: amount } };
  }
  if (action === 'resolve') {
    const { reason, resolution, refund_amount } = parse(ResolveRequest, body);
    return {
      action,
      reason,
      resolution,
      amount: refund_amount === undefined ? undefined : { field: 'refund_amount', value: refund_amount },
    };
  }
  return { action, reason: parse(TransitionRequest, body).reason };
}

/** Parse, call one use case, respond. */
export function paymentRoutes(payments: PaymentsService, { maxAmount }: { maxAmount: number }) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'payment', 'The payment id (pay_…), as POST /api/v1/payments or GET /api/v1/payments answered it');
  const tag = 'Payments';

  routes.add<NewPayment>(
    {
      method: 'post',
      path: '/payments',
      tag,
      summary: 'Create a payment (starts its workflow)',
      body: { schema: CreatePaymentRequest, parse: (raw: unknown) => parseCreate(raw, maxAmount) },
      responses: { 201: { description: 'The payment, status pending_deposit', schema: Payment } },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = paymentView(await payments.create(callOf(ctx.state), body));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/payments',
      tag,
      summary: 'List payments, newest first',
      query: ListPaymentsQuery,
      responses: { 200: { description: 'A page of payments', schema: PaymentList } },
    },
    async (ctx, { query: q }) => {
      const page = await payments.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), status: q.status });
      ctx.body = { object: 'list', data: page.data.map(paymentView), has_more: page.hasMore };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/payments/:id',
      tag,
      summary: 'Read a payment',
      responses: { 200: { description: 'The payment', schema: Payment } },
    },
    async (ctx) => {
      ctx.body = paymentView(await payments.get(scopeOf(ctx.state.principal!), ctx.params.id));
    },
  );

  // One name for one thing: a payment's history is not the Events API (GET /events), so it moved
  // to /history; the old path answers the same and is marked deprecated in the document.
  for (const [suffix, deprecated] of [
    ['history', false],
    ['events', true],
  ] as const) {
    routes.add(
      {
        method: 'get',
        path: `/payments/:id/${suffix}`,
        tag,
        summary: deprecated ? "A payment's history (deprecated: use /history)" : "A payment's history",
        description: deprecated
          ? 'The same answer as GET /api/v1/payments/{id}/history, which replaces it; GET /api/v1/events is the Events API.'
          : 'Every transition, oldest first: who asked for it, from and to which status, and why.',
        deprecated,
        responses: { 200: { description: 'Every transition, oldest first', schema: PaymentHistory } },
      },
      async (ctx) => {
        ctx.body = { object: 'list', data: await payments.history(scopeOf(ctx.state.principal!), ctx.params.id), has_more: false };
      },
    );
  }

  for (const action of CLIENT_ACTIONS) {
    const to = [...new Set(TRANSITIONS.filter((t) => t.action === action).map((t) => t.to))].join(' or ');
    routes.add<TransitionCommand>(
      {
        method: 'post',
        path: `/payments/:id/${action}`,
        tag,
        summary: `${action[0].toUpperCase()}${action.slice(1)} a payment`,
        description: `Allowed from ${allowedFrom(action).join(', ')}; moves it to ${to}. Any other status: 409 invalid_transition.`,
        body: {
          schema: action === 'resolve' ? ResolveRequest : action === 'refund' ? RefundRequest : TransitionRequest,
          parse: (raw: unknown) => transitionCommand(action, raw),
        },
        responses: { 200: { description: 'The updated payment', schema: Payment } },
        errors: ['invalid_transition'],
      },
      async (ctx, { body }) => {
        ctx.body = paymentView(await payments.transition(callOf(ctx.state), ctx.params.id, body));
      },
    );
  }

  return routes;
}
