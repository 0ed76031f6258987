/**
 * docs/quickstart.md in TypeScript: a payment through custody with the typed client. Run it with
 * `npx tsx examples/client/quickstart.ts` while `npm start` runs (URL from API_URL, key from KEY or .data/demo.json).
 */
import fs from 'node:fs';
import { ApiRequestError, createClient } from './client';

export async function quickstart(baseUrl: string, apiKey: string) {
  const api = createClient({ baseUrl, apiKey });

  // Every field is typed: a misspelt one, or amount as a string, does not compile.
  const payment = await api('post', '/api/v1/payments', {
    body: { amount: 125.5, currency: 'USD', payer_email: 'payer@example.com', recipient_email: 'seller@example.com' },
    idempotencyKey: `order-1001-${Date.now()}`,
  });
  console.log(payment.id, payment.status); // pay_… pending_deposit

  const params = { id: payment.id };
  await api('post', '/api/v1/payments/{id}/deposit', { params });
  await api('post', '/api/v1/payments/{id}/approve', { params, body: { reason: 'Buyer confirmed delivery' } });
  const released = await api('post', '/api/v1/payments/{id}/release', { params });
  console.log(released.status); // released

  // A refusal is an ApiRequestError whose code is one of the documented error codes.
  try {
    await api('post', '/api/v1/payments/{id}/refund', { params });
  } catch (err) {
    if (!(err instanceof ApiRequestError) || err.code !== 'invalid_transition') throw err;
    console.log(err.status, err.code); // 409 invalid_transition
  }

  const history = await api('get', '/api/v1/payments/{id}/history', { params });
  console.log(history.data.map((h) => `${h.from ?? '∅'} → ${h.to}`).join(', '));
  return { payment: released, history: history.data };
}

if (require.main === module) {
  const key = process.env.KEY ?? (JSON.parse(fs.readFileSync('.data/demo.json', 'utf8')) as { test_api_key: string }).test_api_key;
  quickstart(process.env.API_URL ?? 'http://127.0.0.1:3000', key).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
