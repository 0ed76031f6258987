import Router from '@koa/router';
import { isTerminal } from '../../domain/payment';
import { paymentView } from '../../domain/paymentView';
import { findPayment, projectPayment } from '../../db/payments';
import { advanceClockUpdate } from '../../workflows';
import { type AppDeps, type AppState, remainingMs, withTemporalDeadline } from '../context';
import { checkIdParam, notFound, parse } from '../errors';
import { scopeOf } from '../middleware';
import { AdvanceClockRequest } from '../schemas';

/**
 * Test clocks, as Stripe's test helpers: move one test-mode payment's clock forward so that its
 * deposit deadline or auto-release fires now, through the workflow's own timers' path. A live
 * payment is not found here: its time is the world's.
 */
export function testHelperRoutes({ db, temporal }: AppDeps) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('payment'));

  router.post('/test_helpers/payments/:id/advance', async (ctx) => {
    const { seconds } = parse(AdvanceClockRequest, ctx.state.body);
    const principal = ctx.state.principal!;
    const row = principal.livemode ? undefined : await findPayment(db, scopeOf(principal), ctx.params.id);
    if (!row) throw notFound('test-mode payment');
    if (isTerminal(row.status)) {
      ctx.body = paymentView(row);
      return;
    }
    const handle = temporal.workflow.getHandle(row.id);
    const { payment, entry } = await withTemporalDeadline(temporal, () => handle.executeUpdate(advanceClockUpdate, { args: [{ seconds }], updateId: ctx.state.resourceId }), remainingMs(ctx.state));
    // A timer that fired is durable now: show it at once, as a transition's answer does.
    if (entry) await projectPayment(db, payment, entry);
    ctx.body = paymentView(payment);
  });

  return router;
}
