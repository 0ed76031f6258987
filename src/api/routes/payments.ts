/** The payment routes: create, list, read, history, and one route per client action. */
import { CLIENT_ACTIONS, TRANSITIONS, allowedFrom, type ClientAction } from '../../domain/payment';
import { paymentView } from '../../domain/paymentView';
import { scopeOf } from '../../domain/tenancy';
import type { NewPayment, PaymentsService, TransitionCommand } from '../../services/payments';
import { callOf } from '../context';
import { parse } from '../parse';
import { Routes } from '../registry';
import {
  CreatePaymentRequest,
  createPaymentBody,
  ListPaymentsQuery,
  Payment,
  PaymentHistory,
  PaymentList,
  RefundRequest,
  ResolveRequest,
  TransitionRequest,
  pageRequestOf,
} from '../schemas';

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
  const createBody = createPaymentBody(maxAmount);

  routes.add<NewPayment>(
    {
      method: 'post',
      path: '/payments',
      tag,
      summary: 'Create a payment (starts its workflow)',
      body: { schema: CreatePaymentRequest, parse: (raw: unknown) => parse(createBody, raw) },
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
