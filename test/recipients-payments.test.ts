/**
 * Payments and milestones naming a recipient (docs/concepts.md, "Recipients"): its e-mail becomes
 * theirs; an unknown recipient (or another account's, or the other mode's) is a 400 naming the field,
 * a rejected one a 409 `recipient_not_payable`, and neither creates anything.
 */
import { describe, expect, it } from 'vitest';
import { useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);
const other = useAccount(stack);

async function recipient(key: string, email: string, status?: string): Promise<string> {
  const res = await stack.http.post('/api/v1/recipients', { key, body: { email, country: 'DE' } });
  expect(res.status).toBe(201);
  if (status) {
    const verified = await stack.http.post(`/api/v1/recipients/${res.body.id}/verification`, { key, body: { status } });
    expect(verified.status).toBe(200);
  }
  return res.body.id as string;
}

const payment = ({ recipient_email: _e, ...rest }: Record<string, unknown>) => rest;
const countPayments = async (key: string) => (await stack.http.get('/api/v1/payments?limit=100', { key })).body.data.length as number;

describe('a payment naming a recipient', () => {
  it('takes the recipient’s e-mail as its recipient_email and shows the recipient, on the payment and its milestone', async () => {
    const id = await recipient(account.test_api_key, 'Studio@Example.com');
    const res = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: payment(validPayment({ recipient: id })) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ recipient_email: 'studio@example.com', recipient: id });
    expect(res.body.milestones[0]).toMatchObject({ recipient_email: 'studio@example.com', recipient: id });
    const read = await stack.http.get(`/api/v1/payments/${res.body.id}`, { key: account.test_api_key });
    expect(read.body).toEqual(res.body);
  });

  it('lets each milestone name its own recipient, or an e-mail, or take the payment’s', async () => {
    const studio = await recipient(account.test_api_key, 'studio@example.com');
    const ops = await recipient(account.test_api_key, 'ops@example.com');
    const res = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: payment(
        validPayment({
          amount: 300,
          recipient: studio,
          milestones: [{ amount: 100 }, { amount: 100, recipient: ops }, { amount: 100, recipient_email: 'someone@example.com' }],
        }),
      ),
    });
    expect(res.status).toBe(201);
    const [first, second, third] = res.body.milestones;
    expect(first).toMatchObject({ recipient: studio, recipient_email: 'studio@example.com' });
    expect(second).toMatchObject({ recipient: ops, recipient_email: 'ops@example.com' });
    expect(third.recipient_email).toBe('someone@example.com');
    expect(third).not.toHaveProperty('recipient');
  });

  it('shows no recipient on a payment made with recipient_email only, as before', async () => {
    const res = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: validPayment() });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('recipient');
    expect(res.body.milestones[0]).not.toHaveProperty('recipient');
  });
});

describe('refusals that change nothing', () => {
  it('answers an unknown recipient, another account’s and the other mode’s 400 naming the field', async () => {
    const theirs = await recipient(other.test_api_key, 'theirs@example.com');
    const live = await recipient(account.live_api_key, 'live@example.com');
    const mine = await recipient(account.test_api_key, 'mine@example.com');
    const before = await countPayments(account.test_api_key);
    for (const id of ['rcp_01JWALK0000000000000000000', theirs, live]) {
      const res = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: payment(validPayment({ recipient: id })) });
      expect(res.status, id).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details).toEqual([{ field: 'recipient', message: `no recipient ${id} in this account and mode` }]);
      const staged = await stack.http.post('/api/v1/payments', {
        key: account.test_api_key,
        body: payment(validPayment({ amount: 20, recipient: mine, milestones: [{ amount: 10 }, { amount: 10, recipient: id }] })),
      });
      expect(staged.status).toBe(400);
      expect(staged.body.error.details[0].field).toBe('milestones.1.recipient');
    }
    expect(await countPayments(account.test_api_key)).toBe(before);
  });

  it('answers a rejected recipient 409 recipient_not_payable, and a pending or unverified one is accepted', async () => {
    const rejected = await recipient(account.test_api_key, 'rejected@example.com', 'rejected');
    const before = await countPayments(account.test_api_key);
    const res = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: payment(validPayment({ recipient: rejected })),
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'recipient_not_payable',
      details: { field: 'recipient', recipient: rejected, status: 'rejected' },
    });
    expect(await countPayments(account.test_api_key)).toBe(before);
    const pending = await recipient(account.test_api_key, 'pending@example.com', 'pending');
    const ok = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: payment(validPayment({ recipient: pending })),
    });
    expect(ok.status).toBe(201);
  });

  it('refuses both recipient and recipient_email, neither, and a malformed recipient id', async () => {
    const id = await recipient(account.test_api_key, 'both@example.com');
    const before = await countPayments(account.test_api_key);
    const both = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: validPayment({ recipient: id }) });
    expect(both.status).toBe(400);
    expect(both.body.error.details[0].field).toBe('recipient');
    const neither = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: payment(validPayment()) });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details).toEqual([{ field: 'recipient_email', message: 'is required (or name a recipient)' }]);
    const malformed = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: payment(validPayment({ recipient: 'pay_1' })),
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].field).toBe('recipient');
    expect(await countPayments(account.test_api_key)).toBe(before);
  });
});
