/** The test helper routes: test clocks for test-mode payments. */
import { paymentView } from './payment.view';
import type { PaymentsService } from './payments.service';
import { callOf } from '../platform/http/context';
import { Routes } from '../platform/http/registry';
import { AdvanceClockRequest, Payment } from '../platform/http/schemas';

/**
 * Test clocks, as Stripe's test helpers: move one test-mode payment's clock forward so that its
 * deposit deadline or auto-release fires now, through the workflow's own timers' path. A live
 * payment is not found here: its time is the world's.
 */
export function testHelperRoutes(payments: PaymentsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'payment', 'The test-mode payment id (pay_…)');
  routes.add(
    {
      method: 'post',
      path: '/test_helpers/payments/:id/advance',
      tag: 'Test helpers',
      summary: "Move a test-mode payment's clock forward (test clock)",
      description:
        'Due timers fire now, with their normal history entries and webhooks: the deposit deadline cancels, an auto-release releases. A live payment answers 404.',
      body: AdvanceClockRequest,
      responses: { 200: { description: 'The payment after its due timers fired', schema: Payment } },
    },
    async (ctx, { body: { seconds } }) => {
      ctx.body = paymentView(await payments.advanceClock(callOf(ctx.state), ctx.params.id, seconds));
    },
  );
  return routes;
}
