/** What payout tests share: a recipient paid by a test payout, through the API as an integrator does it. */
import { expect } from 'vitest';
import { type Stack, validPayment } from './stack';

const DAY = 86_400;

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

/**
 * A new verified recipient with a German bank account, paid 50 EUR by a released test payment and a
 * payout the simulated bank has paid (its clock moved two days). Returns both ids.
 */
export async function paidTestPayout(
  stack: Stack,
  key: string,
  who: { email: string; holder: string },
): Promise<{ recipient: string; payout: string }> {
  const recipient = (await ok(await stack.http.post('/api/v1/recipients', { key, body: { email: who.email, country: 'DE' } }), 201))
    .id as string;
  await ok(await stack.http.post(`/api/v1/recipients/${recipient}/verification`, { key, body: { status: 'verified' } }));
  await ok(
    await stack.http.post(`/api/v1/recipients/${recipient}/bank_accounts`, {
      key,
      body: { account_holder_name: who.holder, country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
    }),
    201,
  );
  const { recipient_email: _e, ...body } = validPayment({ amount: 50, currency: 'EUR', recipient });
  const payment = await ok(await stack.http.post('/api/v1/payments', { key, body }), 201);
  for (const action of ['deposit', 'approve', 'release'])
    await ok(await stack.http.post(`/api/v1/payments/${payment.id}/${action}`, { key, body: {} }));
  const payout = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR' } }), 201);
  await ok(await stack.http.post(`/api/v1/test_helpers/payouts/${payout.id}/advance`, { key, body: { seconds: 2 * DAY } }));
  await expect
    .poll(async () => (await stack.http.get(`/api/v1/payouts/${payout.id}`, { key })).body.status, { timeout: 20_000 })
    .toBe('paid');
  return { recipient, payout: payout.id as string };
}
