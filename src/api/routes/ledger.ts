/** `GET /balance`, `GET /payments/:id/ledger`, `GET /ledger_entries` (docs/money.md): parse, call, respond. */
import Router from '@koa/router';
import { scopeOf } from '../../domain/tenancy';
import type { LedgerService } from '../../services/ledger';
import type { AppState } from '../context';
import { checkIdParam, parse } from '../parse';
import { ListLedgerEntriesQuery, NoQuery, pageRequestOf } from '../schemas';

export function ledgerRoutes(ledger: LedgerService) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('payment'));

  router.get('/balance', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = await ledger.balance(scopeOf(ctx.state.principal!));
  });

  router.get('/payments/:id/ledger', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = { object: 'list', data: await ledger.paymentLedger(scopeOf(ctx.state.principal!), ctx.params.id), has_more: false };
  });

  router.get('/ledger_entries', async (ctx) => {
    const q = parse(ListLedgerEntriesQuery, ctx.query, 'query');
    const page = await ledger.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), paymentId: q.payment_id, type: q.type });
    ctx.body = { object: 'list', data: page.data, has_more: page.hasMore };
  });
  return router;
}
