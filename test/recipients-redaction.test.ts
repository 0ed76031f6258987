/**
 * Erasing a recipient (docs/operations.md, part 12's rules): refused while money is still its or an
 * open payment names it; then its e-mail, name and metadata are "[redacted]" in the recipient, its
 * events' delivery bodies and stored answers, while its id, country and balances stay.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { moveRecipientMoney } from './helpers/ledger';
import { useAccount, useStack, validPayment } from './helpers/stack';
import { startReceiver } from './helpers/receiver';
import { FAST_WEBHOOK_RETRIES, configureWebhook } from './helpers/webhooks';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });
const account = useAccount(stack);
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

it('refuses while an open payment names it or money is its, then erases its personal data everywhere', async () => {
  const key = account.test_api_key;
  await configureWebhook(stack, key, receiver.url, ['recipient.updated']);
  const created = await stack.http.post('/api/v1/recipients', {
    key,
    headers: { 'Idempotency-Key': `rcp-${account.account_id}` },
    body: { email: 'secret.person@example.com', name: 'Secret Person', country: 'IT', metadata: { passport: 'X123' } },
  });
  const id = created.body.id as string;
  const redact = () => stack.http.post(`/api/v1/recipients/${id}/redact`, { key, body: {} });
  const { recipient_email: _e, ...body } = validPayment({ amount: 30, recipient: id });
  const payment = (await stack.http.post('/api/v1/payments', { key, body })).body;
  await stack.http.post(`/api/v1/payments/${payment.id}/deposit`, { key, body: {} });

  const open = await redact();
  expect(open.status).toBe(409);
  expect(open.body.error).toMatchObject({ code: 'recipient_in_use', details: { recipient: id, reason: 'open_payment' } });
  await stack.http.post(`/api/v1/payments/${payment.id}/approve`, { key, body: {} });
  await stack.http.post(`/api/v1/payments/${payment.id}/release`, { key, body: {} });
  const pending = await redact();
  expect(pending.status).toBe(409);
  expect(pending.body.error.details.reason).toBe('balance');
  // Nothing changed by the refusals.
  expect((await stack.http.get(`/api/v1/recipients/${id}`, { key })).body.email).toBe('secret.person@example.com');

  // Verified (an event delivered with its e-mail), then the money leaves its accounts as a payout would.
  await stack.http.post(`/api/v1/recipients/${id}/verification`, { key, body: { status: 'verified' } });
  await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(1);
  await moveRecipientMoney(stack.db, {
    accountId: account.account_id,
    recipientId: id,
    idempotencyKey: `paid|${id}`,
    version: 99,
    from: 'available',
    to: 'paid_out',
    minor: 3000n,
  });

  const erased = await redact();
  expect(erased.status).toBe(200);
  expect(erased.body).toMatchObject({ id, email: '[redacted]', name: '[redacted]', metadata: { redacted: '[redacted]' }, country: 'IT' });
  expect(erased.body.verification.status).toBe('verified');
  expect((await stack.http.get(`/api/v1/recipients/${id}/balance`, { key })).body.balances).toEqual([
    { currency: 'USD', pending: 0, available: 0, in_transit: 0, paid_out: 30 },
  ]);
  expect((await redact()).body).toEqual(erased.body);
  // Nowhere in the service's tables any more.
  for (const table of ['recipients', 'webhook_deliveries', 'idempotency_keys']) {
    const { rows } = await stack.db.raw(
      `select count(*)::int as n from ${table} t where t::text like '%secret.person%' or t::text like '%X123%'`,
    );
    expect(rows[0].n, table).toBe(0);
  }
});
