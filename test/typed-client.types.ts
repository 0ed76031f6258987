/**
 * The typed client's promise, checked by `tsc` (npm run typecheck, run in CI) rather than at run
 * time: the right calls compile, and each wrong one below is a compile error. A line marked
 * @ts-expect-error that compiles fails the type check ("Unused '@ts-expect-error' directive"),
 * so none of these can silently start passing. Nothing here is executed.
 */
import { createClient, ok } from 'payment-custody-client';

export async function typedCalls() {
  const api = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'svc_test_x' });

  // Operations without parameters take none.
  const balance = await ok(api.GET('/api/v1/balance'));
  const payments = await ok(api.GET('/api/v1/payments'));
  const webhooks = await ok(api.GET('/api/v1/webhooks'));
  const released: number | undefined = balance.balances[0]?.released;
  // Optional query parameters, typed; path parameters where the path has them.
  await ok(api.GET('/api/v1/payments', { params: { query: { status: 'in_custody', limit: 10 } } }));
  const payment = await ok(api.GET('/api/v1/payments/{id}', { params: { path: { id: 'pay_x' } } }));
  await ok(
    api.POST('/api/v1/payments', {
      body: { amount: 1, currency: 'EUR', payer_email: 'a@example.com', recipient_email: 'b@example.com' },
    }),
  );

  // A misspelt path.
  // @ts-expect-error '/api/v1/payment' is not a path of the API
  await api.GET('/api/v1/payment');
  // @ts-expect-error '/api/v1/balances' is not a path of the API
  await api.GET('/api/v1/balances');

  // A missing required field: payer_email.
  await api.POST('/api/v1/payments', {
    // @ts-expect-error payer_email is required
    body: { amount: 1, currency: 'EUR', recipient_email: 'a@example.com' },
  });
  // A missing path parameter.
  // @ts-expect-error the path's {id} is required
  await api.GET('/api/v1/payments/{id}');

  // A wrong enum value.
  // @ts-expect-error 'held' is not a payment status
  await api.GET('/api/v1/payments', { params: { query: { status: 'held' } } });
  // @ts-expect-error 'halves' is not a resolution
  await api.POST('/api/v1/payments/{id}/resolve', { params: { path: { id: 'pay_x' } }, body: { resolution: 'halves' } });

  // Milestone routes name the payment and the milestone; erasure names the payment.
  const ms = { path: { id: 'pay_x', ms: 'ms_x' } };
  await ok(api.POST('/api/v1/payments/{id}/milestones/{ms}/approve', { params: ms }));
  await ok(api.POST('/api/v1/payments/{id}/milestones/{ms}/refund', { params: ms, body: { amount: 1 } }));
  await ok(api.POST('/api/v1/payments/{id}/milestones/{ms}/resolve', { params: ms, body: { resolution: 'split', refund_amount: 1 } }));
  await ok(api.POST('/api/v1/payments/{id}/redact', { params: { path: { id: 'pay_x' } } }));
  // @ts-expect-error the milestone's {ms} is required
  await api.POST('/api/v1/payments/{id}/milestones/{ms}/release', { params: { path: { id: 'pay_x' } } });
  // @ts-expect-error 'halves' is not a resolution, for a milestone either
  await api.POST('/api/v1/payments/{id}/milestones/{ms}/resolve', { params: ms, body: { resolution: 'halves' } });
  // @ts-expect-error '/redacts' is not a path of the API
  await api.POST('/api/v1/payments/{id}/redacts', { params: { path: { id: 'pay_x' } } });
  // A milestone's amount is a number.
  await api.POST('/api/v1/payments', {
    body: {
      amount: 1,
      currency: 'EUR',
      payer_email: 'a@example.com',
      recipient_email: 'b@example.com',
      // @ts-expect-error a milestone's amount is a number, not a string
      milestones: [{ amount: '1' }],
    },
  });

  // A field of the wrong type.
  await api.POST('/api/v1/payments', {
    // @ts-expect-error amount is a number, not a string
    body: { amount: '1', currency: 'EUR', payer_email: 'a@example.com', recipient_email: 'b@example.com' },
  });

  return { released, payments, webhooks, payment };
}
