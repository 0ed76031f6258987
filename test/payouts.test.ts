/**
 * Payouts in test mode (docs/payouts.md), black-box through the API with a real worker, Temporal
 * and PostgreSQL: the simulated bank's three stories on a payout's own clock (paid, failed,
 * returned after paid), each step a ledger entry of its own and a `payout.*` event on the
 * webhooks' one road; cancel while pending; two payouts racing for the same money (exactly one);
 * refusals in the contract's order and bad input naming its field, nothing moved; tenancy and mode.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { configureWebhook } from './helpers/webhooks';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);
const stranger = useAccount(stack);

const DAY = 86_400;
/** Valid German IBANs ending in the simulated bank's magic digits (docs/payouts.md, "Test mode"). */
const IBAN = { paid: 'DE94370400440532010000', fails: 'DE67370400440532010001', returned: 'DE40370400440532010002' };

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  await configureWebhook(stack, account.test_api_key, receiver.url, [
    'payout.created',
    'payout.paid',
    'payout.failed',
    'payout.canceled',
    'payout.returned',
  ]);
});
afterAll(async () => receiver.close());

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

/** A verified recipient with a EUR bank account (`iban`) and `amount` EUR available, released from a payment naming it. */
async function fundedRecipient(key: string, amount: number, iban = IBAN.paid) {
  const recipient = await ok(
    await stack.http.post('/api/v1/recipients', { key, body: { email: 'studio@example.com', country: 'DE' } }),
    201,
  );
  await ok(await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } }));
  const bankAccount = await ok(
    await stack.http.post(`/api/v1/recipients/${recipient.id}/bank_accounts`, {
      key,
      body: { account_holder_name: 'Studio GmbH', country: 'DE', currency: 'EUR', iban },
    }),
    201,
  );
  const { recipient_email: _e, ...body } = validPayment({ amount, currency: 'EUR', recipient: recipient.id });
  const payment = await ok(await stack.http.post('/api/v1/payments', { key, body }), 201);
  for (const action of ['deposit', 'approve', 'release'])
    await ok(await stack.http.post(`/api/v1/payments/${payment.id}/${action}`, { key, body: {} }));
  return { recipient: recipient.id as string, bankAccount: bankAccount.id as string };
}

const balance = async (key: string, recipient: string) =>
  (await ok(await stack.http.get(`/api/v1/recipients/${recipient}/balance`, { key }))).balances as {
    currency: string;
    available: number;
    in_transit: number;
    paid_out: number;
  }[];

const advance = async (key: string, id: string, seconds: number) =>
  ok(await stack.http.post(`/api/v1/test_helpers/payouts/${id}/advance`, { key, body: { seconds } }));

/** The payout's own ledger entries, oldest first: type and its postings on the recipient's accounts. */
async function payoutEntries(recipient: string) {
  const rows = await stack
    .db('ledger_entries as e')
    .join('ledger_postings as p', 'p.entry_id', 'e.id')
    .where('e.recipient_id', recipient)
    .andWhere('e.type', 'like', 'payout%')
    .orderBy([{ column: 'e.created_at' }, { column: 'p.amount_minor' }])
    .select('e.type', 'p.address', 'p.amount_minor');
  return rows.map((r: { type: string; address: string; amount_minor: string }) => `${r.type} ${r.address.split(':')[2]} ${r.amount_minor}`);
}

const { EventType } = proto.api.enums.v1;
const summaryOf = (e: proto.api.history.v1.IHistoryEvent) =>
  e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : undefined;

const eventsOf = (payoutId: string) =>
  receiver.received.filter((r) => r.body?.payout_id === payoutId).map((r) => `${r.body.event}#${r.body.sequence}:${r.body.data.status}`);

describe('a test payout through the simulated bank', () => {
  it('ending 0000: pending, in_transit after an hour, paid after a day; each step an entry, each event delivered', async () => {
    const key = account.test_api_key;
    const { recipient, bankAccount } = await fundedRecipient(key, 100);
    const created = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'eur', amount: 40 } }), 201);
    expect(created).toEqual({
      id: expect.stringMatching(/^po_[0-9A-Z]{26}$/),
      object: 'payout',
      recipient,
      bank_account: bankAccount,
      amount: 40,
      currency: 'EUR',
      status: 'pending',
      failure_code: null,
      failure_message: null,
      end_to_end_id: created.id.replace('_', '-'),
      created_at: expect.any(String),
      livemode: false,
    });
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 60, in_transit: 40, paid_out: 0 }]);
    expect(await payoutEntries(recipient)).toEqual(['payout available -4000', 'payout in_transit 4000']);

    // Its workflow is the payout's id, of kind payout.
    const description = await stack.client.workflow.getHandle(created.id).describe();
    expect(description.type).toBe('payoutWorkflow');

    expect((await advance(key, created.id, 3600)).status).toBe('in_transit');
    const paid = await advance(key, created.id, DAY);
    expect(paid).toMatchObject({ id: created.id, status: 'paid', failure_code: null });
    expect(await ok(await stack.http.get(`/api/v1/payouts/${created.id}`, { key }))).toEqual(paid);
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 60, in_transit: 0, paid_out: 40 }]);
    expect(await payoutEntries(recipient)).toEqual([
      'payout available -4000',
      'payout in_transit 4000',
      'payout_paid in_transit -4000',
      'payout_paid paid_out 4000',
    ]);
    // The send step emits no event; each event carries the payout as that step left it, its version the sequence.
    await eventually(async () => (eventsOf(created.id).length === 2 ? true : undefined), 20_000, 'two payout events');
    expect(eventsOf(created.id)).toEqual(['payout.created#1:pending', 'payout.paid#3:paid']);
    expect(await stack.services.ledger.verify(account.account_id, { workflows: false })).toEqual([]);

    // Its story in the Temporal UI, as a payment's: each step an activity named by the step, its status and the money it moved.
    const history = await stack.client.workflow.getHandle(created.id).fetchHistory();
    const events = history.events ?? [];
    const started = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
    expect(started && summaryOf(started)).toBe(`Payout 40.00 EUR to ${bankAccount} (…0000)`);
    const steps = events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).map(summaryOf);
    expect(steps).toEqual([
      'create → pending — 40.00 EUR available → in_transit',
      'send → in_transit',
      'test clock +3600s',
      'pay → paid — 40.00 EUR in_transit → paid_out',
      'test clock +86400s',
    ]);
    const timers = events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED).map(summaryOf);
    expect(timers[0]).toBe('simulated bank: send');
  });

  it('ending 0001: fails with no_account, the money back on available, the account errored and refused for the next payout', async () => {
    const key = account.test_api_key;
    const { recipient, bankAccount } = await fundedRecipient(key, 50, IBAN.fails);
    const created = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR' } }), 201);
    expect(created.amount).toBe(50);
    // One move of the clock takes every step now due, in order: sent, then failed.
    const failed = await advance(key, created.id, DAY);
    expect(failed).toMatchObject({
      status: 'failed',
      failure_code: 'no_account',
      failure_message: 'The bank account details do not match an account at the bank.',
    });
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 50, in_transit: 0, paid_out: 0 }]);
    expect(await payoutEntries(recipient)).toEqual([
      'payout available -5000',
      'payout in_transit 5000',
      'payout_failed in_transit -5000',
      'payout_failed available 5000',
    ]);
    const accounts = await ok(await stack.http.get(`/api/v1/recipients/${recipient}/bank_accounts`, { key }));
    expect(accounts.data).toEqual([expect.objectContaining({ id: bankAccount, status: 'errored', default_for_currency: false })]);
    const again = await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', bank_account: bankAccount } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('no_payable_bank_account');
    await eventually(async () => (eventsOf(created.id).length === 2 ? true : undefined), 20_000, 'two payout events');
    expect(eventsOf(created.id)).toEqual(['payout.created#1:pending', 'payout.failed#3:failed']);
  });

  it('ending 0002: paid after a day, then returned with account_closed, the money back on available by an entry of its own', async () => {
    const key = account.test_api_key;
    const { recipient } = await fundedRecipient(key, 30, IBAN.returned);
    const created = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', amount: 30 } }), 201);
    expect((await advance(key, created.id, DAY)).status).toBe('paid');
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 0, in_transit: 0, paid_out: 30 }]);
    const returned = await advance(key, created.id, 2 * DAY);
    expect(returned).toMatchObject({ status: 'returned', failure_code: 'account_closed' });
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 30, in_transit: 0, paid_out: 0 }]);
    expect(await payoutEntries(recipient)).toEqual([
      'payout available -3000',
      'payout in_transit 3000',
      'payout_paid in_transit -3000',
      'payout_paid paid_out 3000',
      'payout_returned paid_out -3000',
      'payout_returned available 3000',
    ]);
    await eventually(async () => (eventsOf(created.id).length === 3 ? true : undefined), 20_000, 'three payout events');
    expect(eventsOf(created.id)).toEqual(['payout.created#1:pending', 'payout.paid#3:paid', 'payout.returned#4:returned']);
    expect(await stack.services.ledger.verify(account.account_id, { workflows: false })).toEqual([]);
  });

  it('cancels only while pending: the money back on available; a payout the bank has is refused 409', async () => {
    const key = account.test_api_key;
    const { recipient } = await fundedRecipient(key, 20);
    const first = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', amount: 5 } }), 201);
    const canceled = await ok(await stack.http.post(`/api/v1/payouts/${first.id}/cancel`, { key, body: {} }));
    expect(canceled).toMatchObject({ id: first.id, status: 'canceled', failure_code: null });
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 20, in_transit: 0, paid_out: 0 }]);
    expect(await payoutEntries(recipient)).toEqual([
      'payout available -500',
      'payout in_transit 500',
      'payout_canceled in_transit -500',
      'payout_canceled available 500',
    ]);
    const twice = await stack.http.post(`/api/v1/payouts/${first.id}/cancel`, { key, body: {} });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'payout_not_pending', details: { status: 'canceled' } });
    // A canceled payout waits for nothing: the clock moves no money.
    expect((await advance(key, first.id, 3 * DAY)).status).toBe('canceled');

    const second = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', amount: 5 } }), 201);
    expect((await advance(key, second.id, 3600)).status).toBe('in_transit');
    const late = await stack.http.post(`/api/v1/payouts/${second.id}/cancel`, { key, body: {} });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'payout_not_pending', details: { status: 'in_transit' } });
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 15, in_transit: 5, paid_out: 0 }]);
    await eventually(async () => (eventsOf(first.id).length === 2 ? true : undefined), 20_000, 'two payout events');
    expect(eventsOf(first.id)).toEqual(['payout.created#1:pending', 'payout.canceled#2:canceled']);
  });
});

describe('payouts racing for the same money', () => {
  it('of five payouts of 60 from 100 available, exactly one is created; the others 409 with what is available', async () => {
    const key = account.test_api_key;
    const { recipient } = await fundedRecipient(key, 100);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', amount: 60 } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) {
      expect(refused.body.error).toMatchObject({
        code: 'insufficient_available_balance',
        details: { recipient, currency: 'EUR', available: expect.any(Number) },
      });
      expect(refused.body.error.details.available).toBeLessThan(60);
    }
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 40, in_transit: 60, paid_out: 0 }]);
    const list = await ok(await stack.http.get(`/api/v1/payouts?recipient=${recipient}`, { key }));
    expect(list.data).toHaveLength(1);
    expect(await stack.db('payouts').where({ recipient_id: recipient })).toHaveLength(1);
  });
});

describe('refusals and bad input: nothing moved', () => {
  it('checks payouts enabled, then a payable bank account, then the balance, in that order', async () => {
    const key = account.test_api_key;
    const unverified = await ok(
      await stack.http.post('/api/v1/recipients', { key, body: { email: 'new@example.com', country: 'DE' } }),
      201,
    );
    const notEnabled = await stack.http.post('/api/v1/payouts', { key, body: { recipient: unverified.id, currency: 'EUR', amount: 1 } });
    expect(notEnabled.status).toBe(409);
    expect(notEnabled.body.error.code).toBe('payouts_not_enabled');
    // It names the verification status and the route that changes it.
    const route = `POST /api/v1/recipients/${unverified.id}/verification`;
    expect(notEnabled.body.error.details).toMatchObject({
      recipient: unverified.id,
      verification_status: 'unverified',
      past_due: [],
      route,
    });
    expect(notEnabled.body.error.message).toContain('its verification is unverified');
    expect(notEnabled.body.error.message).toContain(route);
    const verifiedPastDue = await stack.http.post(`/api/v1/recipients/${unverified.id}/verification`, {
      key,
      body: { status: 'verified', requirements: { past_due: ['individual.id_number'] } },
    });
    expect(verifiedPastDue.status).toBe(200);
    const pastDue = await stack.http.post('/api/v1/payouts', { key, body: { recipient: unverified.id, currency: 'EUR', amount: 1 } });
    expect(pastDue.body.error).toMatchObject({
      code: 'payouts_not_enabled',
      details: { verification_status: 'verified', past_due: ['individual.id_number'], route },
    });
    expect(pastDue.body.error.message).toContain('individual.id_number past due');

    const { recipient } = await fundedRecipient(key, 10);
    const inUsd = await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'USD', amount: 1 } });
    expect(inUsd.status).toBe(409);
    expect(inUsd.body.error.code).toBe('no_payable_bank_account');
    const tooMuch = await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', amount: 10.01 } });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error).toMatchObject({ code: 'insufficient_available_balance', details: { available: 10 } });
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 10, in_transit: 0, paid_out: 0 }]);
  });

  it('answers 400 naming the field, and creates nothing', async () => {
    const key = account.test_api_key;
    const { recipient } = await fundedRecipient(key, 10);
    const other = await fundedRecipient(key, 1);
    const cases: [Record<string, unknown>, string][] = [
      [{ recipient, currency: 'EUR', amount: -1 }, 'amount'],
      [{ recipient, currency: 'EUR', amount: 0 }, 'amount'],
      [{ recipient, currency: 'EUR', amount: 1.005 }, 'amount'],
      [{ recipient, currency: 'EUR', amount: '5' }, 'amount'],
      [{ recipient, currency: 'EURO', amount: 1 }, 'currency'],
      [{ recipient, currency: 'XXY', amount: 1 }, 'currency'],
      [{ recipient: 'rcp_01JNOSUCHRECIPIENT00000000', currency: 'EUR' }, 'recipient'],
      [{ recipient: 'pay_01JNOTARECIPIENT000000000', currency: 'EUR' }, 'recipient'],
      [{ recipient, currency: 'EUR', bank_account: other.bankAccount }, 'bank_account'],
      [{ recipient, currency: 'EUR', bank_account: 'nope' }, 'bank_account'],
      [{ currency: 'EUR' }, 'recipient'],
      [{ recipient, currency: 'EUR', surprise: true }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await stack.http.post('/api/v1/payouts', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      if (field)
        expect(
          res.body.error.details.map((d: { field: string }) => d.field),
          JSON.stringify(body),
        ).toContain(field);
    }
    expect(await stack.db('payouts').whereIn('recipient_id', [recipient, other.recipient])).toEqual([]);
    expect(await balance(key, recipient)).toEqual([{ currency: 'EUR', pending: 0, available: 10, in_transit: 0, paid_out: 0 }]);
    const clock = await stack.http.post('/api/v1/test_helpers/payouts/po_01JNOSUCHPAYOUT0000000000/advance', { key, body: { seconds: 0 } });
    expect(clock.status).toBe(400);
  });
});

describe('tenancy and mode', () => {
  it("another account sees none of a payout; the other mode's key is told it exists in test mode; lists filter", async () => {
    const key = account.test_api_key;
    const { recipient } = await fundedRecipient(key, 8);
    const payout = await ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency: 'EUR', amount: 3 } }), 201);
    for (const path of [`/api/v1/payouts/${payout.id}`]) {
      const strangers = await stack.http.get(path, { key: stranger.test_api_key });
      expect(strangers.status).toBe(404);
      expect(strangers.body.error.message).not.toMatch(/exists/);
      const live = await stack.http.get(path, { key: account.live_api_key });
      expect(live.status).toBe(404);
      expect(live.body.error.message).toMatch(/exists in test mode/);
    }
    const strangerCancel = await stack.http.post(`/api/v1/payouts/${payout.id}/cancel`, { key: stranger.test_api_key, body: {} });
    expect(strangerCancel.status).toBe(404);
    const strangerCreate = await stack.http.post('/api/v1/payouts', { key: stranger.test_api_key, body: { recipient, currency: 'EUR' } });
    expect(strangerCreate.status).toBe(400);
    expect(strangerCreate.body.error.details[0].field).toBe('recipient');
    expect((await ok(await stack.http.get('/api/v1/payouts', { key: stranger.test_api_key }))).data).toEqual([]);
    expect((await ok(await stack.http.get('/api/v1/payouts', { key: account.live_api_key }))).data).toEqual([]);

    const mine = await ok(await stack.http.get(`/api/v1/payouts?recipient=${recipient}&status=pending`, { key }));
    expect(mine.data.map((p: { id: string }) => p.id)).toEqual([payout.id]);
    expect((await ok(await stack.http.get(`/api/v1/payouts?recipient=${recipient}&status=paid`, { key }))).data).toEqual([]);
    const badFilter = await stack.http.get('/api/v1/payouts?status=lost', { key });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.details[0].field).toBe('status');
    // Unchanged by all of the above.
    expect((await ok(await stack.http.get(`/api/v1/payouts/${payout.id}`, { key }))).status).toBe('pending');
  });
});
