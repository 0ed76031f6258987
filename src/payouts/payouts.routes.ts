/** The payout routes (docs/payouts.md): create, list, read, cancel, and a test payout's clock. Parse, call one use case, respond. */
import { scopeOf } from '../tenants/tenancy.rules';
import type { PayoutsService } from './payouts.service';
import { payoutView } from './payout.view';
import { callOf } from '../platform/http/context';
import { listPage } from '../platform/http/lists';
import { Routes } from '../platform/http/registry';
import { AdvanceClockRequest, CreatePayoutRequest, ListPayoutsQuery, Payout, PayoutList, pageRequestOf } from '../platform/http/schemas';

export function payoutRoutes(payouts: PayoutsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'payout', 'The payout id (po_…), as POST /api/v1/payouts or GET /api/v1/payouts answered it');
  const tag = 'Payouts';

  routes.add(
    {
      method: 'post',
      path: '/payouts',
      tag,
      summary: "Pay a recipient's available money out to its bank account",
      description:
        'Checked in this order: the recipient’s payouts are enabled, a payable bank account (the one named, else the recipient’s ' +
        'default in the currency), then its available balance (the amount defaults to all of it). The money moves from available ' +
        'to in_transit with the payout, in one ledger entry: of two payouts racing for the same money, exactly one is created. ' +
        'A test payout is paid by the simulated bank (docs/payouts.md); a live one goes out in the next pain.001 file.',
      body: CreatePayoutRequest,
      responses: { 201: { description: 'The payout, status pending', schema: Payout } },
      errors: ['payouts_not_enabled', 'no_payable_bank_account', 'insufficient_available_balance', 'recipient_erased'],
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = payoutView(await payouts.create(callOf(ctx.state), body));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/payouts',
      tag,
      summary: 'List payouts, newest first',
      query: ListPayoutsQuery,
      responses: { 200: { description: 'A page of payouts', schema: PayoutList } },
    },
    async (ctx, { query: q }) => {
      const page = await payouts.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), recipient: q.recipient, status: q.status });
      ctx.body = listPage({ data: page.data.map(payoutView), hasMore: page.hasMore });
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/payouts/:id',
      tag,
      summary: 'Read a payout',
      responses: { 200: { description: 'The payout', schema: Payout } },
    },
    async (ctx) => {
      ctx.body = payoutView(await payouts.get(scopeOf(ctx.state.principal!), ctx.params.id));
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/payouts/:id/cancel',
      tag,
      summary: 'Cancel a pending payout',
      description: 'Only while pending (before its file is written, or the simulated bank took it); its money moves back to available.',
      responses: { 200: { description: 'The payout, status canceled', schema: Payout } },
      errors: ['payout_not_pending'],
    },
    async (ctx) => {
      ctx.body = payoutView(await payouts.cancel(callOf(ctx.state), ctx.params.id));
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/test_helpers/payouts/:id/advance',
      tag: 'Test helpers',
      summary: "Move a test-mode payout's clock forward (test clock)",
      description:
        'The simulated bank takes the steps now due on the payout’s clock (docs/payouts.md, "Test mode"), each with its ledger ' +
        'entry and event. A live payout answers 404.',
      body: AdvanceClockRequest,
      responses: { 200: { description: 'The payout after the due steps', schema: Payout } },
    },
    async (ctx, { body: { seconds } }) => {
      ctx.body = payoutView(await payouts.advanceClock(callOf(ctx.state), ctx.params.id, seconds));
    },
  );

  return routes;
}
