/**
 * Test and live mode (docs/security.md): every route of the served OpenAPI document that takes an id,
 * asked with a key of one mode about the same account's object of the other, is a 404 whose message
 * says the object exists in the other mode, showing nothing of it; another account's object stays a
 * bare 404. The routes are read from the running service, so a route is covered the day it is added.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../src/webhooks/webhookConfigurations.repository';
import { createSingleDelivery } from '../src/webhooks/webhookDeliveries.repository';
import { samplePayment } from '../src/payments/payment.view';
import { envelope } from '../src/webhooks/webhookEnvelope.view';
import { type Stack, type TestAccount, eventually, useAccount, useStack, validPayment } from './helpers/stack';

interface Route {
  method: string;
  template: string;
  /** Each path parameter with the id prefix its description names (`pay`, `wh`, `dlv`…). */
  params: { name: string; prefix: string }[];
  body?: unknown;
}

type Objects = Record<string, string>;

/** One object of each kind the routes name, of `acct` in one mode, by id prefix. */
async function objectsOf(stack: Stack, acct: TestAccount, livemode: boolean): Promise<Objects> {
  const key = livemode ? acct.live_api_key : acct.test_api_key;
  const payment = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
  expect(payment.status).toBe(201);
  // A live configuration's URL must be public https: made below the API, as configure would make it.
  const scope = { accountId: acct.account_id, livemode };
  const webhook = await createWebhook(stack.db, stack.config.WEBHOOK_SECRET_KEY!, scope, 'https://receiver.example.com/hook', [
    'payment.test',
  ]);
  const now = new Date().toISOString();
  const delivery = await createSingleDelivery(stack.db, webhook.id, envelope('payment.test', now, samplePayment(livemode, now), 0));
  const event = await eventually(async () => {
    const list = await stack.http.get(`/api/v1/events?payment_id=${payment.body.id}`, { key });
    return (list.body.data as { id: string }[]).at(0)?.id;
  });
  const keys = await stack.http.get('/api/v1/api-keys', { key });
  const recipient = await stack.http.post('/api/v1/recipients', { key, body: { email: 'seller@example.com', country: 'DE' } });
  expect(recipient.status).toBe(201);
  const bankAccount = await stack.http.post(`/api/v1/recipients/${recipient.body.id}/bank_accounts`, {
    key,
    body: { account_holder_name: 'Jane Doe', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
  });
  expect(bankAccount.status).toBe(201);
  // An offer lives in a dispute, which needs a deposited payment of its own.
  const disputed = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
  expect((await stack.http.post(`/api/v1/payments/${disputed}/deposit`, { key, body: {} })).status).toBe(200);
  expect((await stack.http.post(`/api/v1/payments/${disputed}/dispute`, { key, body: { opened_by: 'payer' } })).status).toBe(200);
  const offered = await stack.http.post(`/api/v1/payments/${disputed}/dispute/offers`, {
    key,
    body: { proposed_by: 'recipient', refund_amount: 10 },
  });
  expect(offered.status).toBe(200);
  // A payout's row, written below the API: its mode is what the walk needs, not its money.
  const payoutId = `po_${randomBytes(13).toString('hex').toUpperCase()}`;
  await stack.db('payouts').insert({
    id: payoutId,
    account_id: acct.account_id,
    livemode,
    recipient_id: recipient.body.id,
    bank_account_id: bankAccount.body.id,
    amount: '1050',
    currency: 'EUR',
    amount_exponent: 2,
    status: 'pending',
    end_to_end_id: payoutId.replace('_', '-'),
    created_at: new Date(),
    updated_at: new Date(),
  });
  const bankFileId = `bf_${randomBytes(13).toString('hex').toUpperCase()}`;
  await stack.db('bank_files').insert({
    id: bankFileId,
    account_id: acct.account_id,
    livemode,
    message_id: `NTF-${bankFileId}`,
    message_type: 'camt.054.001.08',
    answer: JSON.stringify({ id: bankFileId, object: 'bank_file' }),
    created_at: new Date(),
  });
  // An unapplied bank credit of the account's, written below the API as the bank inbox books one.
  const bankCreditId = `bc_${randomBytes(13).toString('hex').toUpperCase()}`;
  await stack.db('bank_credits').insert({
    id: bankCreditId,
    account_id: acct.account_id,
    livemode,
    amount_minor: '1050',
    currency: 'EUR',
    exponent: 2,
    reference: null,
    status: 'unapplied',
    booked_on: now.slice(0, 10),
    entry_key: `mode-walk|${bankCreditId}`,
  });
  return {
    po: payoutId,
    bf: bankFileId,
    bc: bankCreditId,
    of: offered.body.dispute.offers[0].id,
    rcp: recipient.body.id,
    ba: bankAccount.body.id,
    pay: payment.body.id,
    ms: payment.body.milestones[0].id,
    wh: webhook.id,
    dlv: delivery,
    evt: event,
    key: (keys.body.data as { id: string }[])[0].id,
  };
}

const fill = (route: Route, objects: Objects) =>
  route.params.reduce((path, p) => path.replace(`{${p.name}}`, objects[p.prefix]), route.template);

describe('an object of the other mode', () => {
  const stack = useStack();
  const acct = useAccount(stack);
  const stranger = useAccount(stack);
  let routes: Route[] = [];
  const objects: Record<'test' | 'live', Objects> = { test: {}, live: {} };

  beforeAll(async () => {
    const doc = (await stack.http.get('/api/v1/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: unknown[];
            parameters?: { in: string; name: string; description: string }[];
            requestBody?: { content: Record<string, { example?: unknown }> };
          }
        >
      >;
    };
    routes = Object.entries(doc.paths).flatMap(([template, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.security?.length !== 0 && template.includes('{'))
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          template,
          params: (op.parameters ?? [])
            .filter((p) => p.in === 'path')
            .map((p) => ({ name: p.name, prefix: /\((\w+)_…\)/.exec(p.description)?.[1] ?? `unknown:${p.description}` })),
          body: op.requestBody?.content['application/json']?.example,
        })),
    );
    objects.test = await objectsOf(stack, acct, false);
    objects.live = await objectsOf(stack, acct, true);
  });

  it('the document names the kind of every path id, and has routes to walk', () => {
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes)
      for (const p of route.params) expect(Object.keys(objects.test), `${route.template} ${p.name}`).toContain(p.prefix);
  });

  for (const [asked, held] of [
    ['test', 'live'],
    ['live', 'test'],
  ] as const) {
    it(`a ${asked} key asking for a ${held} object of its account: 404 saying it exists in ${held} mode, nothing of it shown`, async () => {
      const key = asked === 'live' ? acct.live_api_key : acct.test_api_key;
      const wrong: string[] = [];
      for (const route of routes) {
        const path = fill(route, objects[held]);
        const res = await stack.http.call(route.method, path, { key, body: route.method === 'GET' ? undefined : (route.body ?? {}) });
        const where = `${route.method} ${path} (${route.template})`;
        if (res.status !== 404 || res.body?.error?.code !== 'not_found') wrong.push(`${where}: ${res.status} ${JSON.stringify(res.body)}`);
        else if (!new RegExp(`exists in ${held} mode`).test(res.body.error.message)) wrong.push(`${where}: ${res.body.error.message}`);
        // Nothing of the object: no field beyond the error format, no amount, no URL.
        else if (res.body.error.details !== undefined || /receiver\.example|125\.5|payer@/.test(JSON.stringify(res.body)))
          wrong.push(`${where}: shows ${JSON.stringify(res.body)}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  it("another account's object, in either mode, stays a bare 404", async () => {
    const wrong: string[] = [];
    for (const key of [stranger.test_api_key, stranger.live_api_key])
      for (const held of ['test', 'live'] as const)
        for (const route of routes) {
          const path = fill(route, objects[held]);
          const res = await stack.http.call(route.method, path, { key, body: route.method === 'GET' ? undefined : (route.body ?? {}) });
          if (res.status !== 404 || /exists in/.test(res.body.error.message))
            wrong.push(`${route.method} ${path}: ${res.status} ${res.body.error?.message}`);
        }
    expect(wrong).toEqual([]);
  });

  it('an id that exists nowhere is a bare 404', async () => {
    const res = await stack.http.get(`/api/v1/payments/pay_${randomBytes(8).toString('hex')}`, { key: acct.test_api_key });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('no such payment');
  });
});
