/** The custody trail: public key, signed tree head, consistency and a payment's proofs. Parse, call, respond. */
import Router from '@koa/router';
import { scopeOf } from '../../domain/tenancy';
import type { AuditService } from '../../services/audit';
import type { AppState } from '../context';
import { checkIdParam, parse } from '../parse';
import { AuditConsistencyQuery, NoQuery } from '../schemas';

export function auditRoutes(audit: AuditService) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('payment'));

  router.get('/audit/public_key', (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = audit.publicKey();
  });

  router.get('/audit/tree_head', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = await audit.treeHead();
  });

  router.get('/audit/consistency', async (ctx) => {
    const q = parse(AuditConsistencyQuery, ctx.query, 'query');
    ctx.body = await audit.consistency(q.from, q.to);
  });

  router.get('/payments/:id/proof', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = await audit.paymentProof(scopeOf(ctx.state.principal!), ctx.params.id);
  });
  return router;
}
