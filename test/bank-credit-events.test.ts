/**
 * `bank_credit.*` events (docs/webhooks.md, "Bank credit events"; docs/bank.md, "Unapplied credits"),
 * with a real worker, Temporal, PostgreSQL and a loopback receiver: a credit of an account is an
 * event of that account, signed and delivered on the one road and listed by `GET /api/v1/events`
 * (`bank_credit_id`, `data` the credit, its debtor as last4 only); another account sees none of
 * them, and the operator's credits (naming no payment) are no tenant's event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { CUSTODY_ENV, creditsFile } from './helpers/bankCredits';
import { startReceiver } from './helpers/receiver';
import { configureWebhook } from './helpers/webhooks';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack({
  env: CUSTODY_ENV,
});
const account = useAccount(stack);
const stranger = useAccount(stack);

const BANK_CREDIT_EVENTS = ['bank_credit.received', 'bank_credit.applied', 'bank_credit.returned'];

let mine: Awaited<ReturnType<typeof startReceiver>>;
let theirs: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  mine = await startReceiver();
  theirs = await startReceiver();
  await configureWebhook(stack, account.test_api_key, mine.url, BANK_CREDIT_EVENTS);
  await configureWebhook(stack, stranger.test_api_key, theirs.url, BANK_CREDIT_EVENTS);
});
afterAll(async () => {
  await mine?.close();
  await theirs?.close();
});

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

const transfer = (key: string, body: { reference: string; amount: number; currency: string }) =>
  stack.http.post('/api/v1/test_helpers/bank_transfers', { key, body });

async function bankPayment(key: string, amount: number, currency = 'EUR') {
  return (await ok(
    await stack.http.post('/api/v1/payments', { key, body: validPayment({ funding: 'bank_transfer', amount, currency }) }),
    201,
  )) as { id: string; funding_reference: string };
}

/** The `bank_credit.*` deliveries a receiver got for one credit, as `event#sequence:status`. */
const deliveredFor = (receiver: typeof mine, creditId: string) =>
  receiver.received
    .filter((r) => r.body?.bank_credit_id === creditId)
    .map((r) => `${r.body.event}#${r.body.sequence}:${r.body.data.status}`);

/** Until the receiver got `expected` for the credit (in any order), or the last sight after 20 s. */
async function untilDelivered(receiver: typeof mine, creditId: string, expected: string[]) {
  await eventually(
    async () => (deliveredFor(receiver, creditId).length >= expected.length ? true : undefined),
    20_000,
    expected.join(', '),
  ).catch(() => undefined);
  expect(deliveredFor(receiver, creditId).sort()).toEqual([...expected].sort());
}

const eventsOf = async (key: string, type?: string) =>
  (await ok(await stack.http.get(`/api/v1/events?limit=100${type ? `&type=${type}` : ''}`, { key }))).data as any[];

describe('bank_credit events', () => {
  it('a credit that funds nothing is bank_credit.received, applying it bank_credit.applied: delivered and listed, to its account only', async () => {
    const p = await bankPayment(account.test_api_key, 100);
    // Another currency than the payment's: it funds nothing, an unapplied credit of the payment's account.
    const booked = await ok(await transfer(account.test_api_key, { reference: p.funding_reference, amount: 30, currency: 'USD' }), 201);
    const credit = booked.bank_credits[0];
    expect(credit).toMatchObject({ status: 'unapplied', payment: p.id, currency: 'USD' });

    await untilDelivered(mine, credit.id, ['bank_credit.received#1:unapplied']);
    const delivery = mine.received.find((r) => r.body?.bank_credit_id === credit.id)!;
    // Signed like every delivery (docs/webhooks.md, "Verify the signature").
    expect(delivery.headers['webhook-signature']).toBeTruthy();
    expect(delivery.body).toMatchObject({ event: 'bank_credit.received', bank_credit_id: credit.id, sequence: 1 });
    expect(delivery.body.data).toStrictEqual(credit);

    const listed = (await eventsOf(account.test_api_key, 'bank_credit.received')).find((e) => e.bank_credit_id === credit.id);
    expect(listed).toMatchObject({ object: 'event', type: 'bank_credit.received', bank_credit_id: credit.id, sequence: 1, data: credit });

    // Applied onto a payment in its currency that lacks at least its amount.
    const usd = await bankPayment(account.test_api_key, 50, 'USD');
    const applied = await ok(
      await stack.http.post(`/api/v1/bank_credits/${credit.id}/apply`, { key: account.test_api_key, body: { payment: usd.id } }),
    );
    expect(applied.status).toBe('applied');
    await untilDelivered(mine, credit.id, ['bank_credit.received#1:unapplied', 'bank_credit.applied#2:applied']);
    const appliedEvent = (await eventsOf(account.test_api_key, 'bank_credit.applied')).find((e) => e.bank_credit_id === credit.id);
    expect(appliedEvent).toMatchObject({ sequence: 2, data: { id: credit.id, status: 'applied', payment: usd.id } });

    // Another account sees none of it.
    expect(theirs.received.filter((r) => r.body?.bank_credit_id === credit.id)).toEqual([]);
    expect((await eventsOf(stranger.test_api_key)).filter((e) => e.bank_credit_id === credit.id)).toEqual([]);
  });

  it("an overpayment: the part the payment took is received and applied, the excess received; none of it another account's", async () => {
    const p = await bankPayment(account.test_api_key, 100);
    const booked = await ok(await transfer(account.test_api_key, { reference: p.funding_reference, amount: 130, currency: 'EUR' }), 201);
    const taken = booked.bank_credits.find((c: any) => c.status === 'applied');
    const excess = booked.bank_credits.find((c: any) => c.status === 'unapplied');
    expect(taken).toMatchObject({ amount: 100, payment: p.id });
    expect(excess).toMatchObject({ amount: 30, payment: p.id });

    await untilDelivered(mine, excess.id, ['bank_credit.received#1:unapplied']);
    await untilDelivered(mine, taken.id, ['bank_credit.received#1:applied', 'bank_credit.applied#1:applied']);
    const events = (await eventsOf(account.test_api_key)).filter((e) => [taken.id, excess.id].includes(e.bank_credit_id));
    expect(events.map((e) => `${e.type}:${e.bank_credit_id === taken.id ? 'taken' : 'excess'}`).sort()).toEqual(
      ['bank_credit.applied:taken', 'bank_credit.received:taken', 'bank_credit.received:excess'].sort(),
    );
    expect(events.find((e) => e.bank_credit_id === taken.id && e.type === 'bank_credit.applied').data).toMatchObject({ amount: 100 });

    expect(theirs.received.filter((r) => [taken.id, excess.id].includes(r.body?.bank_credit_id))).toEqual([]);
    expect((await eventsOf(stranger.test_api_key)).filter((e) => [taken.id, excess.id].includes(e.bank_credit_id))).toEqual([]);
  });

  it("the bank's file: a tenant's credit is its event, with its debtor as last4 only; the operator's credits are nobody's event", async () => {
    const live = async (amount: number) =>
      (await ok(
        await stack.http.post('/api/v1/payments', {
          key: account.live_api_key,
          body: validPayment({ funding: 'bank_transfer', amount, currency: 'EUR' }),
        }),
        201,
      )) as { id: string; funding_reference: string };
    const [exact, short, over] = [await live(100), await live(100), await live(100)];
    const refs = { exact: exact.funding_reference, short: short.funding_reference, over: over.funding_reference };
    const messageId = `EVT-${Date.now()}`;
    const inbox = bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
    const taken = await inbox.take(Buffer.from(creditsFile(refs, 'DE89370400440532013000', messageId, `${messageId}-`)), 'test');
    expect(taken.outcome).toBe('taken');
    const fileId = (taken as { id: string }).id;

    // The account's USD credit naming the exact payment: received, listed to the account in live mode.
    const usd = await stack.db('bank_credits').where({ bank_file_id: fileId, currency: 'USD' }).first('id');
    const events = await eventually(async () => {
      const found = (await eventsOf(account.live_api_key)).filter((e) => e.bank_credit_id === usd.id);
      return found.length > 0 ? found : undefined;
    });
    expect(events.map((e) => e.type)).toEqual(['bank_credit.received']);
    // The payer of the exact payment's credit: shown as last4 only, in the event as in the view.
    const exactCredit = await stack.db('bank_credits').where({ bank_file_id: fileId, payment_id: exact.id, currency: 'EUR' }).first('id');
    const exactEvents = (await eventsOf(account.live_api_key)).filter((e) => e.bank_credit_id === exactCredit.id);
    expect(exactEvents.map((e) => e.type).sort()).toEqual(['bank_credit.applied', 'bank_credit.received']);
    expect(exactEvents[0].data.debtor_last4).toBe('2606');
    const stored = JSON.stringify(await stack.db('events').whereIn('bank_credit_id', [usd.id, exactCredit.id]).select('data'));
    expect(stored).not.toContain('Ada Payer');
    expect(stored).not.toContain('FR1420041010050500013M02606');

    // The operator's (no reference, a malformed one): no event and no delivery, for any tenant.
    const operators = (await stack.db('bank_credits').where({ bank_file_id: fileId }).whereNull('account_id').select('id')).map(
      (r) => r.id,
    );
    expect(operators.length).toBe(2);
    expect(await stack.db('events').whereIn('bank_credit_id', operators).select('id')).toEqual([]);
    expect(await stack.db('webhook_deliveries').whereIn('bank_credit_id', operators).select('id')).toEqual([]);
    expect((await eventsOf(stranger.live_api_key)).filter((e) => e.bank_credit_id)).toEqual([]);
  });
});
