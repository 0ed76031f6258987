/**
 * Erasure against money that can come back (docs/payouts.md, "Returns and erasure"): a recipient
 * paid by a payout still inside its return window cannot be erased (409 naming the payout and when
 * the window closes), since a return would owe it money again; and an erased recipient takes no
 * more writes: no change, verification report, bank account, payment or payout names it again.
 */
import { expect, it } from 'vitest';
import { PAYOUT_RETURN_WINDOW_MS } from '../src/payouts/payout.rules';
import { paidTestPayout } from './helpers/payouts';
import { useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

it('a paid payout inside its return window stops erasure with a 409 naming when it closes; after it, erasure goes through', async () => {
  const key = account.test_api_key;
  const { recipient, payout: payoutId } = await paidTestPayout(stack, key, { email: 'paid.person@example.com', holder: 'Paid Person' });
  const payout = { id: payoutId };
  // Nothing pending, available or in transit: all of it paid out, and a bank may still return it.
  const [eur] = (await ok(await stack.http.get(`/api/v1/recipients/${recipient}/balance`, { key }))).balances;
  expect(eur).toMatchObject({ available: 0, in_transit: 0, pending: 0, paid_out: 50 });

  const paid: { updated_at: Date } = await stack.db('payouts').where({ id: payout.id }).first('updated_at');
  const paidAt = paid.updated_at;
  const closesAt = new Date(paidAt.getTime() + PAYOUT_RETURN_WINDOW_MS).toISOString();
  const refused = await stack.http.post(`/api/v1/recipients/${recipient}/redact`, { key, body: {} });
  expect(refused.status, JSON.stringify(refused.body)).toBe(409);
  expect(refused.body.error).toMatchObject({
    code: 'recipient_in_use',
    details: { recipient, reason: 'return_window', payout: payout.id, return_window_closes_at: closesAt },
  });
  expect(refused.body.error.message).toContain(closesAt);
  // Nothing changed by the refusal.
  expect((await ok(await stack.http.get(`/api/v1/recipients/${recipient}`, { key }))).email).toBe('paid.person@example.com');

  // The window closed (the payout paid 90 days and a second ago): the erasure goes through.
  await stack
    .db('payouts')
    .where({ id: payout.id })
    .update({ updated_at: new Date(Date.now() - PAYOUT_RETURN_WINDOW_MS - 1000) });
  expect((await ok(await stack.http.post(`/api/v1/recipients/${recipient}/redact`, { key, body: {} }))).email).toBe('[redacted]');
});

it('an erased recipient takes no more writes: change, verification, bank account, payment or payout, each a 409 that changes nothing', async () => {
  const key = account.test_api_key;
  const recipient = (
    await ok(await stack.http.post('/api/v1/recipients', { key, body: { email: 'gone.person@example.com', country: 'DE' } }), 201)
  ).id as string;
  const erased = await ok(await stack.http.post(`/api/v1/recipients/${recipient}/redact`, { key, body: {} }));
  expect(erased.email).toBe('[redacted]');
  const before = await ok(await stack.http.get(`/api/v1/recipients/${recipient}`, { key }));

  const writes: [string, () => Promise<{ status: number; body: any }>, string | undefined][] = [
    [
      'PATCH e-mail',
      () => stack.http.patch(`/api/v1/recipients/${recipient}`, { key, body: { email: 'new.address@example.com' } }),
      undefined,
    ],
    [
      'PATCH name and metadata',
      () => stack.http.patch(`/api/v1/recipients/${recipient}`, { key, body: { name: 'Back Again', metadata: { a: 'b' } } }),
      undefined,
    ],
    [
      'verification',
      () => stack.http.post(`/api/v1/recipients/${recipient}/verification`, { key, body: { status: 'verified' } }),
      undefined,
    ],
    [
      'bank account',
      () =>
        stack.http.post(`/api/v1/recipients/${recipient}/bank_accounts`, {
          key,
          body: { account_holder_name: 'Gone Person', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
        }),
      undefined,
    ],
    [
      'payment',
      () => {
        const { recipient_email: _e, ...body } = validPayment({ amount: 10, currency: 'EUR', recipient });
        return stack.http.post('/api/v1/payments', { key, body });
      },
      'recipient',
    ],
    ['payout', () => stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR' } }), 'recipient'],
  ];
  for (const [what, write, field] of writes) {
    const res = await write();
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(409);
    expect(res.body.error, what).toMatchObject({
      code: 'recipient_erased',
      details: { recipient, erased_at: expect.any(String), ...(field ? { field } : {}) },
    });
  }
  expect(await ok(await stack.http.get(`/api/v1/recipients/${recipient}`, { key }))).toEqual(before);
  expect((await ok(await stack.http.get(`/api/v1/recipients/${recipient}/bank_accounts`, { key }))).data).toEqual([]);
  expect(Number((await stack.db('payments').where({ recipient_id: recipient }).count({ n: '*' }))[0].n)).toBe(0);
  // Erasing again is still answered (idempotent).
  expect((await stack.http.post(`/api/v1/recipients/${recipient}/redact`, { key, body: {} })).status).toBe(200);
});
