/**
 * Live availability (docs/bank.md, "Live availability"; docs/money.md, "Pending, then available"),
 * with a real worker, Temporal and PostgreSQL: in live mode released money becomes `available` to a
 * recipient only once its payment's funding is booked at the bank. An `api` payment released to a
 * verified recipient stays pending, a payout of it refused, until a camt.054 credit carrying its
 * funding reference (the platform's settlement) is taken, in parts that must add up; a
 * `bank_transfer` payment funded by credits is available at once when released; a verification after
 * an unbooked release moves only the booked part, the rest following its booking.
 */
import { describe, expect, it } from 'vitest';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { CUSTODY_ENV, settlementFile } from './helpers/bankCredits';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack({
  env: CUSTODY_ENV,
});
const account = useAccount(stack);

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

/** A camt.054 credit to the custody account carrying `reference`, taken as the bank inbox takes it. */
async function credit(reference: string, amount: string, currency = 'EUR') {
  const inbox = bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
  expect((await inbox.take(settlementFile(reference, amount, currency), 'test')).outcome).toBe('taken');
}

/** A live recipient with a German bank account, verified or not. */
async function recipient(key: string, verified: boolean): Promise<string> {
  const r = await ok(await stack.http.post('/api/v1/recipients', { key, body: { email: 'shop@example.com', country: 'DE' } }), 201);
  if (verified) await ok(await stack.http.post(`/api/v1/recipients/${r.id}/verification`, { key, body: { status: 'verified' } }));
  await ok(
    await stack.http.post(`/api/v1/recipients/${r.id}/bank_accounts`, {
      key,
      body: { account_holder_name: 'Shop Owner', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
    }),
    201,
  );
  return r.id as string;
}

/** A live payment to `to`, funded as `funding` says; `steps` taken in order. */
async function payment(key: string, to: string, amount: number, funding: 'api' | 'bank_transfer', steps: string[]) {
  const { recipient_email: _e, ...body } = validPayment({ amount, currency: 'EUR', recipient: to, funding });
  const p = await ok(await stack.http.post('/api/v1/payments', { key, body }), 201);
  for (const step of steps) await ok(await stack.http.post(`/api/v1/payments/${p.id}/${step}`, { key, body: {} }));
  return p as { id: string; funding_reference: string };
}

const balance = async (key: string, id: string) => {
  const { balances } = await ok(await stack.http.get(`/api/v1/recipients/${id}/balance`, { key }));
  const eur = (balances as { currency: string; pending: number; available: number }[]).find((b) => b.currency === 'EUR');
  return { pending: eur?.pending ?? 0, available: eur?.available ?? 0 };
};

/** Until the recipient's EUR balance is `want` (a booking's step follows its file), or its last value after 20 s. */
async function balanceBecomes(key: string, id: string, want: { pending: number; available: number }) {
  let last: unknown;
  await eventually(async () => {
    last = await balance(key, id);
    return JSON.stringify(last) === JSON.stringify(want) ? true : undefined;
  }).catch(() => expect(last).toEqual(want));
}

describe('live availability: released money is available once its funding is booked at the bank', () => {
  it('keeps an api payment’s release pending, its payout refused, until its settlement’s credits add up to it', async () => {
    const key = account.live_api_key;
    const to = await recipient(key, true);
    const p = await payment(key, to, 20, 'api', ['deposit', 'approve', 'release']);
    expect(await balance(key, to)).toEqual({ pending: 20, available: 0 });
    const refused = await stack.http.post('/api/v1/payouts', { key, body: { recipient: to, currency: 'EUR', amount: 5 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_available_balance', details: { available: 0 } });

    // A part of the settlement is not the funding booked.
    await credit(p.funding_reference, '12.00');
    expect(await balance(key, to)).toEqual({ pending: 20, available: 0 });
    // The rest: the taking of its file makes the release available, in one entry keyed by the release.
    await credit(p.funding_reference, '8.00');
    await balanceBecomes(key, to, { pending: 0, available: 20 });
    const moves = await stack.db('ledger_entries').where({ recipient_id: to, type: 'make_available' }).select('id');
    expect(moves).toHaveLength(1);
    await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient: to, currency: 'EUR', amount: 5 } }), 201);
  });

  it('makes a bank_transfer payment funded by credits available at once when released, beside an unbooked api release', async () => {
    const key = account.live_api_key;
    const to = await recipient(key, true);
    const unbooked = await payment(key, to, 7, 'api', ['deposit', 'approve', 'release']);
    const p = await payment(key, to, 30, 'bank_transfer', []);
    await credit(p.funding_reference, '10.00');
    await credit(p.funding_reference, '20.00');
    await eventually(async () =>
      (await stack.http.get(`/api/v1/payments/${p.id}`, { key })).body.status === 'in_custody' ? true : undefined,
    );
    for (const step of ['approve', 'release']) await ok(await stack.http.post(`/api/v1/payments/${p.id}/${step}`, { key, body: {} }));
    expect(await balance(key, to)).toEqual({ pending: 7, available: 30 });
    await credit(unbooked.funding_reference, '7.00');
    await balanceBecomes(key, to, { pending: 0, available: 37 });
  });

  it('moves at verification only the releases whose funding is booked; the rest follows its booking, nothing twice', async () => {
    const key = account.live_api_key;
    const to = await recipient(key, false);
    const booked = await payment(key, to, 30, 'api', ['deposit']);
    await credit(booked.funding_reference, '30.00');
    for (const step of ['approve', 'release']) await ok(await stack.http.post(`/api/v1/payments/${booked.id}/${step}`, { key, body: {} }));
    const later = await payment(key, to, 20, 'api', ['deposit', 'approve', 'release']);
    expect(await balance(key, to)).toEqual({ pending: 50, available: 0 });

    await ok(await stack.http.post(`/api/v1/recipients/${to}/verification`, { key, body: { status: 'verified' } }));
    expect(await balance(key, to)).toEqual({ pending: 20, available: 30 });
    const tooMuch = await stack.http.post('/api/v1/payouts', { key, body: { recipient: to, currency: 'EUR', amount: 30.01 } });
    expect(tooMuch.status).toBe(409);

    await credit(later.funding_reference, '20.00');
    await balanceBecomes(key, to, { pending: 0, available: 50 });
    // A second verification report moves nothing twice.
    await ok(await stack.http.post(`/api/v1/recipients/${to}/verification`, { key, body: { status: 'verified' } }));
    expect(await balance(key, to)).toEqual({ pending: 0, available: 50 });
    const moves = await stack.db('ledger_entries').where({ recipient_id: to, type: 'make_available' }).select('id');
    expect(moves).toHaveLength(2);
  });
});
