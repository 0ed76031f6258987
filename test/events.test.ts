/**
 * The Events API: every event emitted, webhook or not, newest first with cursors both ways,
 * filters, and account and mode scoping (404 across them). Payment lists page both ways too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';
import { configureWebhook } from './helpers/webhooks';

describe('GET /api/v1/events', () => {
  const stack = useStack();
  const acct = useAccount(stack);
  let ids: string[];
  beforeAll(async () => {
    const key = acct.test_api_key;
    ids = [];
    for (let i = 0; i < 3; i++) {
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: i + 1 }) });
      ids.push(p.body.id);
      await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key });
    }
    await stack.http.post(`/api/v1/payments/${ids[0]}/approve`, { key });
  });
  const get = (path: string, key = acct.test_api_key) => stack.http.get(path, { key });

  it('lists every event, without any webhook configured, newest first, with sequence and the payment as it was', async () => {
    const res = await get('/api/v1/events?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.data).toHaveLength(7);
    const times = res.body.data.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const first = res.body.data.filter((e: { payment_id: string }) => e.payment_id === ids[0]).reverse();
    expect(first.map((e: { type: string; sequence: number; data: { status: string } }) => [e.type, e.sequence, e.data.status])).toEqual([
      ['payment.created', 1, 'pending_deposit'],
      ['payment.deposited', 2, 'in_custody'],
      ['payment.approved', 3, 'pending_release'],
    ]);
    const one = await get(`/api/v1/events/${first[1].id}`);
    expect(one.body).toEqual(first[1]);
  });

  it('pages forward with starting_after and back with ending_before; has_more says where more lie', async () => {
    const all = (await get('/api/v1/events?limit=100')).body.data.map((e: { id: string }) => e.id);
    const p1 = (await get('/api/v1/events?limit=3')).body;
    const p2 = (await get(`/api/v1/events?limit=3&starting_after=${p1.data[2].id}`)).body;
    const p3 = (await get(`/api/v1/events?limit=3&starting_after=${p2.data[2].id}`)).body;
    expect([p1.has_more, p2.has_more, p3.has_more]).toEqual([true, true, false]);
    expect([...p1.data, ...p2.data, ...p3.data].map((e: { id: string }) => e.id)).toEqual(all);
    const back = (await get(`/api/v1/events?limit=3&ending_before=${p3.data[0].id}`)).body;
    expect(back.data.map((e: { id: string }) => e.id)).toEqual(p2.data.map((e: { id: string }) => e.id));
    expect(back.has_more).toBe(true);
    expect((await get(`/api/v1/events?starting_after=${all[0]}&ending_before=${all[1]}`)).status).toBe(400);
  });

  it('filters by payment, type and time', async () => {
    const byPayment = (await get(`/api/v1/events?payment_id=${ids[1]}`)).body.data;
    expect(byPayment.map((e: { type: string }) => e.type)).toEqual(['payment.deposited', 'payment.created']);
    const deposits = (await get('/api/v1/events?type=payment.deposited')).body.data;
    expect(deposits).toHaveLength(3);
    const future = (await get(`/api/v1/events?created_gte=${new Date(Date.now() + 60_000).toISOString()}`)).body.data;
    expect(future).toEqual([]);
    expect((await get('/api/v1/events?type=payment.exploded')).status).toBe(400);
  });

  it('is scoped by account and mode: 404 across them', async () => {
    const some = (await get('/api/v1/events?limit=1')).body.data[0];
    const other = await stack.newAccount();
    expect((await get(`/api/v1/events/${some.id}`, other.test_api_key)).status).toBe(404);
    expect((await get(`/api/v1/events/${some.id}`, acct.live_api_key)).status).toBe(404);
    expect((await get('/api/v1/events', acct.live_api_key)).body.data).toEqual([]);
    expect((await get(`/api/v1/events?starting_after=${some.id}`, other.test_api_key)).status).toBe(400);
  });

  it('payments page back with ending_before too', async () => {
    const all = (await get('/api/v1/payments?limit=100')).body.data.map((p: { id: string }) => p.id);
    const back = (await get(`/api/v1/payments?limit=1&ending_before=${all[2]}`)).body;
    expect(back.data.map((p: { id: string }) => p.id)).toEqual([all[1]]);
    expect(back.has_more).toBe(true);
  });
});

describe('GET /api/v1/events lists every object’s events: payouts’ and recipients’ too (one outbox)', () => {
  const stack = useStack();
  const acct = useAccount(stack);

  it('records a recipient’s and a payout’s events like a payment’s, each delivery naming its event', async () => {
    const key = acct.test_api_key;
    const hook = await configureWebhook(stack, key, 'http://127.0.0.1:9/hook', ['recipient.updated', 'payout.created']);
    const recipient = (await stack.http.post('/api/v1/recipients', { key, body: { email: 'studio@example.com', country: 'DE' } })).body;
    expect((await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } })).status).toBe(
      200,
    );
    const bank = await stack.http.post(`/api/v1/recipients/${recipient.id}/bank_accounts`, {
      key,
      body: { account_holder_name: 'Studio GmbH', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
    });
    expect(bank.status).toBe(201);
    const { recipient_email: _e, ...body } = validPayment({ amount: 50, currency: 'EUR', recipient: recipient.id });
    const payment = (await stack.http.post('/api/v1/payments', { key, body })).body;
    for (const action of ['deposit', 'approve', 'release'])
      expect((await stack.http.post(`/api/v1/payments/${payment.id}/${action}`, { key, body: {} })).status).toBe(200);
    const payout = await stack.http.post('/api/v1/payouts', { key, body: { recipient: recipient.id, currency: 'EUR', amount: 20 } });
    expect(payout.status).toBe(201);

    const updates = (await stack.http.get('/api/v1/events?type=recipient.updated', { key })).body.data;
    expect(updates.length).toBeGreaterThan(0);
    expect(updates[0]).toMatchObject({
      object: 'event',
      type: 'recipient.updated',
      recipient_id: recipient.id,
      data: { id: recipient.id, object: 'recipient' },
    });
    expect(updates[0].payment_id).toBeUndefined();
    const created = (await stack.http.get('/api/v1/events?type=payout.created', { key })).body.data;
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      type: 'payout.created',
      payout_id: payout.body.id,
      sequence: 1,
      data: { id: payout.body.id, object: 'payout' },
    });
    expect((await stack.http.get(`/api/v1/events/${created[0].id}`, { key })).body).toEqual(created[0]);
    // Stripe's model: every webhook is an event, and a delivery references its event.
    const deliveries = (await stack.db('webhook_deliveries').where({ webhook_id: hook.id })) as {
      event: string;
      event_id: string | null;
    }[];
    const events = [...updates, ...created] as { id: string }[];
    expect(deliveries.length).toBe(events.length);
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    // A payment's delivery names its event too.
    const paymentHook = await configureWebhook(stack, key, 'http://127.0.0.1:9/pay', ['payment.created']);
    const paid = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body;
    const paymentEvent = await eventually(
      async () => ((await stack.http.get(`/api/v1/events?payment_id=${paid.id}`, { key })).body.data as { id: string }[])[0],
      20_000,
      'the payment’s event',
    );
    const paymentDelivery = await eventually(
      async () => ((await stack.db('webhook_deliveries').where({ webhook_id: paymentHook.id })) as { event_id: string }[])[0],
      20_000,
      'the payment’s delivery',
    );
    expect(paymentDelivery.event_id).toBe(paymentEvent.id);
  });
});
