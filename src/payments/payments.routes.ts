/** The payment routes: create, list, read, history, one route per client action, and redaction. */
import type { z } from 'zod';
import { CLIENT_ACTIONS, MILESTONE_ACTIONS, type ClientAction, type MilestoneAction } from './paymentTypes.rules';
import { TRANSITIONS, allowedFrom } from './payment.rules';
import { paymentView } from './payment.view';
import { scopeOf } from '../tenants/tenancy.rules';
import type { PaymentsService, TransitionCommand } from './payments.service';
import type { RedactionService } from './redaction.service';
import { callOf } from '../platform/http/context';
import { Routes } from '../platform/http/registry';
import {
  DisputeRequest,
  createPaymentRequest,
  ListPaymentsQuery,
  Payment,
  PaymentHistory,
  PaymentList,
  RefundRequest,
  ResolveRequest,
  TransitionRequest,
  pageRequestOf,
} from '../platform/http/schemas';
import { listPage, wholeList } from '../platform/http/lists';
import { disputeRoutes } from './disputes.routes';

// Each route's path written out where it is defined, so that searching the code for a path finds its
// handler; the handlers' bodies come from the transition table.
const ACTION_PATHS = {
  deposit: '/payments/:id/deposit',
  approve: '/payments/:id/approve',
  release: '/payments/:id/release',
  cancel: '/payments/:id/cancel',
  refund: '/payments/:id/refund',
  dispute: '/payments/:id/dispute',
  resolve: '/payments/:id/resolve',
} as const satisfies { [A in ClientAction]: `/payments/:id/${A}` };
const MILESTONE_ACTION_PATHS = {
  approve: '/payments/:id/milestones/:ms/approve',
  release: '/payments/:id/milestones/:ms/release',
  refund: '/payments/:id/milestones/:ms/refund',
  dispute: '/payments/:id/milestones/:ms/dispute',
  resolve: '/payments/:id/milestones/:ms/resolve',
} as const satisfies { [A in MilestoneAction]: `/payments/:id/milestones/:ms/${A}` };

const TRANSITION_BODIES = { refund: RefundRequest, resolve: ResolveRequest, dispute: DisputeRequest } as const;
const transitionBody = (action: ClientAction) =>
  action === 'refund' || action === 'resolve' || action === 'dispute' ? TRANSITION_BODIES[action] : TransitionRequest;
type TransitionBody = z.output<typeof RefundRequest | typeof ResolveRequest | typeof DisputeRequest | typeof TransitionRequest>;

/** A transition's parsed body as the use case takes it: refund may name an amount, resolve a resolution (and a split's refund_amount). */
function transitionCommand(action: ClientAction, body: TransitionBody): TransitionCommand {
  if (action === 'refund') {
    const { reason, amount } = body as z.output<typeof RefundRequest>;
    return { action, reason, amount: amount === undefined ? undefined : { field: 'amount', value: amount } };
  }
  if (action === 'resolve') {
    const { reason, resolution, refund_amount } = body as z.output<typeof ResolveRequest>;
    return {
      action,
      reason,
      resolution,
      amount: refund_amount === undefined ? undefined : { field: 'refund_amount', value: refund_amount },
    };
  }
  if (action === 'dispute') {
    const { reason, opened_by, respond_within_seconds } = body as z.output<typeof DisputeRequest>;
    return { action, reason, dispute: { openedBy: opened_by, respondWithinSeconds: respond_within_seconds } };
  }
  return { action, reason: body.reason };
}

/** Parse, call one use case, respond. */
export function paymentRoutes(payments: PaymentsService, redaction: RedactionService, { maxAmount }: { maxAmount: number }) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'payment', 'The payment id (pay_…), as POST /api/v1/payments or GET /api/v1/payments answered it');
  routes.param('ms', 'milestone', "The milestone id (ms_…), as the payment's milestones show it");
  const tag = 'Payments';

  routes.add(
    {
      method: 'post',
      path: '/payments',
      tag,
      summary: 'Create a payment (starts its workflow)',
      body: createPaymentRequest(maxAmount),
      responses: { 201: { description: 'The payment, status pending_deposit', schema: Payment } },
      errors: ['open_payment_limit_reached', 'recipient_not_payable', 'recipient_erased'],
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
      ctx.body = listPage({ data: page.data.map(paymentView), hasMore: page.hasMore });
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
  for (const [path, deprecated] of [
    ['/payments/:id/history', false],
    ['/payments/:id/events', true],
  ] as const) {
    routes.add(
      {
        method: 'get',
        path,
        tag,
        summary: deprecated ? "A payment's history (deprecated: use /history)" : "A payment's history",
        description: deprecated
          ? 'The same answer as GET /api/v1/payments/{id}/history, which replaces it; GET /api/v1/events is the Events API.'
          : 'Every transition, oldest first: who asked for it, from and to which status, and why.',
        deprecated,
        responses: { 200: { description: 'Every transition, oldest first', schema: PaymentHistory } },
      },
      async (ctx) => {
        ctx.body = wholeList(await payments.history(scopeOf(ctx.state.principal!), ctx.params.id));
      },
    );
  }

  for (const action of CLIENT_ACTIONS) {
    const to = [...new Set(TRANSITIONS.filter((t) => t.action === action).map((t) => t.to))].join(' or ');
    routes.add(
      {
        method: 'post',
        path: ACTION_PATHS[action],
        tag,
        summary: `${action[0].toUpperCase()}${action.slice(1)} a payment`,
        description:
          `Allowed from ${allowedFrom(action).join(', ')}; moves it to ${to}. On a payment with milestones, allowed while some ` +
          "milestone's status is one of these, acting on each such milestone (docs/concepts.md). Otherwise: 409 invalid_transition.",
        body: transitionBody(action),
        responses: { 200: { description: 'The updated payment', schema: Payment } },
        errors: action === 'deposit' ? ['invalid_transition', 'funded_by_bank_transfer'] : ['invalid_transition'],
      },
      async (ctx, { body }) => {
        ctx.body = paymentView(await payments.transition(callOf(ctx.state), ctx.params.id, transitionCommand(action, body)));
      },
    );
  }

  // A milestone's own actions (docs/concepts.md, "Deals paid in stages"): the same table, read for the milestone's status.
  for (const action of MILESTONE_ACTIONS) {
    const to = [...new Set(TRANSITIONS.filter((t) => t.action === action).map((t) => t.to))].join(' or ');
    routes.add(
      {
        method: 'post',
        path: MILESTONE_ACTION_PATHS[action],
        tag,
        summary: `${action[0].toUpperCase()}${action.slice(1)} one milestone`,
        description:
          `Allowed from the milestone's status ${allowedFrom(action).join(', ')}; moves the milestone to ${to}, and the payment ` +
          'to the status its milestones give it (docs/concepts.md). Any other milestone status: 409 invalid_transition naming it; ' +
          'a milestone the payment does not have: 404.',
        body: transitionBody(action),
        responses: { 200: { description: 'The updated payment', schema: Payment } },
        errors: ['invalid_transition'],
      },
      async (ctx, { body }) => {
        const command = { ...transitionCommand(action, body), milestoneId: ctx.params.ms };
        ctx.body = paymentView(await payments.transition(callOf(ctx.state), ctx.params.id, command));
      },
    );
  }

  disputeRoutes(routes, payments, tag);

  routes.add(
    {
      method: 'post',
      path: '/payments/:id/redact',
      tag,
      summary: "Erase a finished payment's personal data",
      description:
        'Released, cancelled or refunded payments only; any other status: 409 invalid_transition. Replaces payer_email, ' +
        "recipient_email, description, metadata, each milestone's reference, description and recipient_email, its disputes' evidence and offers' notes, and every reason " +
        'a client gave with "[redacted]" everywhere the service keeps them (payment, history, events, webhook deliveries, ' +
        'stored idempotent answers); Temporal holds none of them. Amounts, ' +
        'ledger, custody trail and proofs are unchanged. Idempotent; recorded in the history as action "redact" with its actor.',
      responses: { 200: { description: 'The payment, redacted', schema: Payment } },
      errors: ['invalid_transition'],
    },
    async (ctx) => {
      ctx.body = paymentView(await redaction.redact(callOf(ctx.state), ctx.params.id));
    },
  );

  return routes;
}
