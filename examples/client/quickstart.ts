/**
 * docs/quickstart.md in TypeScript: a payment through custody with the typed client. Run it with
 * `npx tsx examples/client/quickstart.ts` while `npm start` runs (API as in the quickstart, the
 * base ending in /api/v1, default http://127.0.0.1:3000/api/v1; key from KEY or .data/demo.json).
 */
import fs from 'node:fs';
import { ApiRequestError, createClient, ok } from 'payment-custody-client';

export async function quickstart(origin: string, apiKey: string) {
  const api = createClient({ baseUrl: origin, apiKey });

  // Every field is typed: a misspelt one, or amount as a string, does not compile.
  const payment = await ok(
    api.POST('/api/v1/payments', {
      body: { amount: 125.5, currency: 'USD', payer_email: 'payer@example.com', recipient_email: 'seller@example.com' },
      params: { header: { 'Idempotency-Key': `order-1001-${Date.now()}` } },
    }),
  );
  console.log(payment.id, payment.status); // pay_… pending_deposit

  const params = { path: { id: payment.id } };
  await ok(api.POST('/api/v1/payments/{id}/deposit', { params }));
  await ok(api.POST('/api/v1/payments/{id}/approve', { params, body: { reason: 'Buyer confirmed delivery' } }));
  const released = await ok(api.POST('/api/v1/payments/{id}/release', { params }));
  console.log(released.status); // released

  // A refusal is an ApiRequestError whose code is one of the documented error codes.
  try {
    await ok(api.POST('/api/v1/payments/{id}/refund', { params }));
  } catch (err) {
    if (!(err instanceof ApiRequestError) || err.code !== 'invalid_transition') throw err;
    console.log(err.status, err.code, err.body.error.details); // 409 invalid_transition { status: 'released', allowed_actions: [] }
  }

  // Operations without parameters take none.
  const balance = await ok(api.GET('/api/v1/balance'));
  console.log(balance.balances.map((b) => `${b.currency}: released ${b.released}`).join(', '));

  const history = await ok(api.GET('/api/v1/payments/{id}/history', { params }));
  console.log(history.data.map((h) => `${h.from ?? '∅'} → ${h.to}`).join(', '));
  return { payment: released, history: history.data, balances: balance.balances };
}

if (require.main === module) {
  const key = process.env.KEY ?? (JSON.parse(fs.readFileSync('.data/demo.json', 'utf8')) as { test_api_key: string }).test_api_key;
  const origin = new URL(process.env.API ?? 'http://127.0.0.1:3000/api/v1').origin;
  quickstart(origin, key).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
