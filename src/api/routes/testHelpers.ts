import Router from '@koa/router';
import { paymentView } from '../../domain/paymentView';
import type { PaymentsService } from '../../services/payments';
import { type AppState, callOf } from '../context';
import { checkIdParam, parse } from '../parse';
import { AdvanceClockRequest } from '../schemas';

/**
 * Test clocks, as Stripe's test helpers: move one test-mode payment's clock forward so that its
 * deposit deadline or auto-release fires now, through the workflow's own timers' path. A live
 * payment is not found here: its time is the world's.
 */
export function testHelperRoutes(payments: PaymentsService) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('payment'));
  router.post('/test_helpers/payments/:id/advance', async (ctx) => {
    const { seconds } = parse(AdvanceClockRequest, ctx.state.body);
    ctx.body = paymentView(await payments.advanceClock(callOf(ctx.state), ctx.params.id, seconds));
  });
  return router;
}
