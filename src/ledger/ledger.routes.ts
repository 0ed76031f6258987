/** `GET /balance`, `GET /payments/:id/ledger`, `GET /ledger_entries` (docs/money.md): parse, call, respond. */
import { scopeOf } from '../tenants/tenancy.rules';
import type { LedgerService } from './ledgerCheck.service';
import { Routes } from '../platform/http/registry';
import { AsOfQuery, Balance, LedgerEntryList, ListLedgerEntriesQuery, PaymentLedger, pageRequestOf } from '../platform/http/schemas';
import { listPage, wholeList } from '../platform/http/lists';

export function ledgerRoutes(ledger: LedgerService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'payment', 'The payment id (pay_…), as POST /api/v1/payments or GET /api/v1/payments answered it');
  const tag = 'Ledger';

  routes.add(
    {
      method: 'get',
      path: '/balance',
      tag,
      summary: 'Balances per currency of the caller’s mode',
      description:
        'deposited = held + released + refunded, where released is gross of fees (the sum of payments’ amount_released) and released = released_net + fees (docs/money.md); released_net counts every release’s net, to recipient_payable or to a recipient. Kept beside the ledger entries in the same transaction; with as_of, summed from the entries up to that instant.',
      query: AsOfQuery,
      responses: { 200: { description: 'The balances', schema: Balance } },
    },
    async (ctx, { query }) => {
      ctx.body = await ledger.balance(scopeOf(ctx.state.principal!), query.as_of ? new Date(query.as_of) : undefined);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/payments/:id/ledger',
      tag,
      summary: "A payment's ledger entries, oldest first",
      description: 'One entry per movement of money (deposit, refund, release, split), each with postings that sum to zero.',
      responses: { 200: { description: 'Every entry of the payment', schema: PaymentLedger } },
    },
    async (ctx) => {
      ctx.body = wholeList(await ledger.paymentLedger(scopeOf(ctx.state.principal!), ctx.params.id));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/ledger_entries',
      tag,
      summary: 'List ledger entries, newest first',
      query: ListLedgerEntriesQuery,
      responses: { 200: { description: 'A page of ledger entries', schema: LedgerEntryList } },
    },
    async (ctx, { query: q }) => {
      const page = await ledger.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), paymentId: q.payment_id, type: q.type });
      ctx.body = listPage(page);
    },
  );
  return routes;
}
