/**
 * The contract, proved by a validator we did not write: real traffic (every operation, with valid
 * and invalid requests) goes through Stoplight Prism's validating proxy in front of the API, and
 * any response Prism finds off the served OpenAPI document (an undocumented status, a missing or
 * wrong header, a body off its schema) fails the run. `npm run test:contract`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/lib/net';
import { auditScheduleId } from '../../src/audit/audit.service';
import { startReceiver } from '../helpers/receiver';
import { eventually, useStack, validPayment, type TestAccount } from '../helpers/stack';

interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}
interface Exchange {
  operation: string;
  status: number;
  violations: Violation[];
  body: any;
}

const stack = useStack();
let prism: ChildProcess;
let prismUrl: string;
let prismLog = '';
let documented: string[];
const exchanges: Exchange[] = [];

beforeAll(async () => {
  // The document exactly as the API serves it to integrators.
  const doc = (await stack.http.get('/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'contract-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const port = await freePort();
  prismUrl = `http://127.0.0.1:${port}`;
  const bin = require.resolve('@stoplight/prism-cli/dist/index.js');
  prism = spawn(process.execPath, [bin, 'proxy', file, stack.url, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prism.stdout?.on('data', (d: Buffer) => (prismLog += d.toString()));
  prism.stderr?.on('data', (d: Buffer) => (prismLog += d.toString()));
  await eventually(async () => (/Prism is listening/.test(prismLog) ? true : undefined), 60_000, `Prism to listen:\n${prismLog}`);
});

afterAll(async () => {
  prism?.kill();
});

/** One request through Prism; `operation` names the documented operation it exercises. */
async function send(
  operation: string,
  urlPath: string,
  opts: { key?: string; token?: string; body?: unknown; raw?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Exchange> {
  const [method] = operation.split(' ');
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['X-API-Key'] = opts.key;
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
  const res = await fetch(`${prismUrl}${urlPath}`, { method: method.toUpperCase(), headers, body });
  const text = await res.text();
  const violations = JSON.parse(res.headers.get('sl-violations') ?? '[]') as Violation[];
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep the text */
  }
  const exchange = { operation, status: res.status, violations, body: parsed };
  exchanges.push(exchange);
  return exchange;
}

describe('every operation through Prism’s validating proxy', () => {
  let acct: TestAccount;
  let key: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    acct = await stack.newAccount();
    key = acct.test_api_key;
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.close());

  it('sends valid and invalid requests to every operation', async () => {
    // Probes and login.
    expect((await send('get /healthz', '/healthz')).status).toBe(200);
    expect((await send('get /readyz', '/readyz')).status).toBe(200);
    const login = await send('post /api/v1/auth/login', '/api/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(login.status).toBe(200);
    const token = login.body.token as string;
    expect((await send('post /api/v1/auth/login', '/api/v1/auth/login', { body: { email: acct.email, password: 'wrong' } })).status).toBe(
      401,
    );
    expect((await send('post /api/v1/auth/login', '/api/v1/auth/login', { body: { email: 'x' } })).status).toBe(400);
    expect((await send('post /api/v1/auth/login', '/api/v1/auth/login', { raw: 'email', contentType: 'text/plain' })).status).toBe(415);

    // Payments.
    const create = 'post /api/v1/payments';
    const p1 = await send(create, '/api/v1/payments', { key, body: validPayment(), headers: { 'Idempotency-Key': 'contract-1' } });
    expect(p1.status).toBe(201);
    const id = p1.body.id as string;
    expect(
      (await send(create, '/api/v1/payments', { key, body: validPayment(), headers: { 'Idempotency-Key': 'contract-1' } })).status,
    ).toBe(201);
    const conflict = await send(create, '/api/v1/payments', {
      key,
      body: validPayment({ amount: 11 }),
      headers: { 'Idempotency-Key': 'contract-1' },
    });
    expect(conflict.status).toBe(409);
    expect((await send(create, '/api/v1/payments', { key, body: { amount: 'ten' } })).status).toBe(400);
    expect((await send(create, '/api/v1/payments', { key, raw: 'amount=10', contentType: 'text/plain' })).status).toBe(415);
    expect((await send(create, '/api/v1/payments', { key, raw: JSON.stringify({ description: 'x'.repeat(110 * 1024) }) })).status).toBe(
      413,
    );
    expect((await send(create, '/api/v1/payments', { key: 'svc_test_wrong', body: validPayment() })).status).toBe(401);
    expect(
      (await send(create, '/api/v1/payments', { token, body: validPayment(), headers: { 'X-Service-Mode': 'sideways' } })).status,
    ).toBe(400);

    expect((await send('get /api/v1/payments', '/api/v1/payments?limit=2', { key })).status).toBe(200);
    expect((await send('get /api/v1/payments', '/api/v1/payments?limit=0', { key })).status).toBe(400);
    expect((await send('get /api/v1/payments/{id}', `/api/v1/payments/${id}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/payments/{id}', '/api/v1/payments/pay_NOPE', { key })).status).toBe(404);
    expect((await send('get /api/v1/payments/{id}/events', `/api/v1/payments/${id}/events`, { key })).status).toBe(200);
    expect((await send('get /api/v1/payments/{id}/events', '/api/v1/payments/pay_NOPE/events', { key })).status).toBe(404);
    // The custody trail: a signed head that covers the payment first (the Schedule, asked now).
    await eventually(
      async () => {
        await stack.client.schedule.getHandle(auditScheduleId(stack.taskQueue)).trigger();
        // A head signed before the payment's leaves were sequenced answers 200 with none (and may be of size 0).
        const proof = await stack.http.get<{ leaves: unknown[] }>(`/api/v1/payments/${id}/proof`, { key });
        return proof.status === 200 && proof.body.leaves.length > 0 ? true : undefined;
      },
      30_000,
      'a signed tree head holding the payment',
    );
    expect((await send('get /api/v1/audit/public_key', '/api/v1/audit/public_key', { key })).status).toBe(200);
    expect((await send('get /api/v1/audit/public_key', '/api/v1/audit/public_key?format=pem', { key })).status).toBe(400);
    const head = await send('get /api/v1/audit/tree_head', '/api/v1/audit/tree_head', { key });
    expect(head.status).toBe(200);
    expect((await send('get /api/v1/audit/tree_head', '/api/v1/audit/tree_head?size=1', { key })).status).toBe(400);
    const consistency = 'get /api/v1/audit/consistency';
    expect((await send(consistency, `/api/v1/audit/consistency?from=1&to=${head.body.tree_size}`, { key })).status).toBe(200);
    expect((await send(consistency, '/api/v1/audit/consistency?from=x&to=1', { key })).status).toBe(400);
    for (const extra of documented.filter((o) => o.startsWith('get /api/v1/payments/{id}/') && !o.endsWith('/events'))) {
      const suffix = extra.slice('get /api/v1/payments/{id}'.length);
      expect((await send(extra, `/api/v1/payments/${id}${suffix}`, { key })).status, extra).toBe(200);
      expect((await send(extra, `/api/v1/payments/pay_NOPE${suffix}`, { key })).status, extra).toBe(404);
    }

    const transition = async (action: string, paymentId: string, body?: unknown) =>
      send(`post /api/v1/payments/{id}/${action}`, `/api/v1/payments/${paymentId}/${action}`, { key, body });
    expect((await transition('release', id)).status).toBe(409);
    expect((await transition('deposit', id, { reason: 'wired' })).status).toBe(200);
    expect((await transition('deposit', id, { reason: 42 })).status).toBe(400);
    expect((await transition('approve', id)).status).toBe(200);
    expect((await transition('approve', 'pay_NOPE')).status).toBe(404);
    expect((await transition('release', id)).status).toBe(200);
    const newPayment = async () => (await send(create, '/api/v1/payments', { key, body: validPayment() })).body.id as string;
    const p2 = await newPayment();
    expect((await transition('cancel', p2)).status).toBe(200);
    expect((await transition('cancel', p2)).status).toBe(409);
    const p3 = await newPayment();
    expect((await transition('refund', p3)).status).toBe(409);
    await transition('deposit', p3);
    expect((await transition('refund', p3)).status).toBe(200);
    const p4 = await newPayment();
    await transition('deposit', p4);
    expect((await transition('dispute', p4, { reason: 'not as described' })).status).toBe(200);
    expect((await transition('dispute', p4)).status).toBe(409);
    expect((await transition('resolve', p4, { resolution: 'sideways' })).status).toBe(400);
    expect((await transition('resolve', p4, { resolution: 'refund' })).status).toBe(200);

    const p5 = await newPayment();
    const advance = 'post /api/v1/test_helpers/payments/{id}/advance';
    expect((await send(advance, `/api/v1/test_helpers/payments/${p5}/advance`, { key, body: { seconds: 8 * 24 * 3600 } })).status).toBe(
      200,
    );
    expect((await send(advance, `/api/v1/test_helpers/payments/${p5}/advance`, { key, body: { seconds: -1 } })).status).toBe(400);

    // Money: a fee, a partial refund, a split resolution, the ledger and the balance.
    const p6 = (await send(create, '/api/v1/payments', { key, body: validPayment({ amount: 100, platform_fee: 5 }) })).body.id as string;
    await transition('deposit', p6);
    expect((await transition('refund', p6, { amount: 20 })).status).toBe(200);
    expect((await transition('refund', p6, { amount: 1000 })).status).toBe(400);
    await transition('dispute', p6);
    expect((await transition('resolve', p6, { resolution: 'split' })).status).toBe(400);
    expect((await transition('resolve', p6, { resolution: 'split', refund_amount: 30 })).status).toBe(200);
    // Milestones: each action on one milestone, a success and a refusal (docs/concepts.md, "Deals paid in stages").
    const staged = await send(create, '/api/v1/payments', {
      key,
      body: validPayment({ amount: 90, platform_fee: 9, milestones: [{ amount: 30 }, { amount: 30, reference: 'b' }, { amount: 30 }] }),
    });
    expect(staged.status).toBe(201);
    const [ma, mb, mc] = (staged.body.milestones as { id: string }[]).map((m) => m.id);
    await transition('deposit', staged.body.id);
    const onMilestoneOf = async (paymentId: string, action: string, ms: string, body?: unknown) =>
      send(`post /api/v1/payments/{id}/milestones/{ms}/${action}`, `/api/v1/payments/${paymentId}/milestones/${ms}/${action}`, {
        key,
        body,
      });
    const onMilestone = async (action: string, ms: string, body?: unknown) => onMilestoneOf(staged.body.id as string, action, ms, body);
    expect((await onMilestone('approve', ma)).status).toBe(200);
    expect((await onMilestone('approve', 'ms_NOPE')).status).toBe(404);
    expect((await onMilestone('release', ma)).status).toBe(200);
    expect((await onMilestone('release', ma)).status).toBe(409);
    expect((await onMilestone('refund', mb, { amount: 10 })).status).toBe(200);
    expect((await onMilestone('refund', mb, { amount: 1000 })).status).toBe(400);
    expect((await onMilestone('dispute', mc)).status).toBe(200);
    expect((await onMilestone('dispute', mc)).status).toBe(409);
    expect((await onMilestone('resolve', mc, { resolution: 'sideways' })).status).toBe(400);
    expect((await onMilestone('resolve', mc, { resolution: 'release' })).status).toBe(200);
    // Disputes as a process (docs/concepts.md, "Disputes"): each action of the payment's dispute and of a milestone's.
    const disputeOf = async (paymentId: string, path: string, body: unknown, ms?: string) => {
      const base = ms ? '/api/v1/payments/{id}/milestones/{ms}/dispute' : '/api/v1/payments/{id}/dispute';
      const real = `/api/v1/payments/${paymentId}${ms ? `/milestones/${ms}` : ''}/dispute`;
      const template = path.replace(/\/offers\/[^/]+\//, '/offers/{offer}/');
      return send(`post ${base}${template}`, `${real}${path}`, { key, body });
    };
    const twoParts = await send(create, '/api/v1/payments', {
      key,
      body: validPayment({ amount: 90, milestones: [{ amount: 50 }, { amount: 40 }] }),
    });
    const [d1, d2] = (twoParts.body.milestones as { id: string }[]).map((m) => m.id);
    await transition('deposit', twoParts.body.id);
    const onePart = (await send(create, '/api/v1/payments', { key, body: validPayment({ amount: 90 }) })).body.id as string;
    await transition('deposit', onePart);
    for (const [paymentId, ms, other] of [
      [onePart, undefined, undefined],
      [twoParts.body.id as string, d1, d2],
    ] as const) {
      const opened = ms
        ? await onMilestoneOf(paymentId, 'dispute', ms, { opened_by: 'payer' })
        : await transition('dispute', paymentId, { opened_by: 'payer' });
      expect(opened.status).toBe(200);
      expect((await disputeOf(paymentId, '/evidence', { party: 'recipient', text: 'delivered' }, ms)).status).toBe(200);
      expect((await disputeOf(paymentId, '/evidence', { party: 'judge', text: 'x' }, ms)).status).toBe(400);
      const fromRecipient = await disputeOf(paymentId, '/offers', { proposed_by: 'recipient', refund_amount: 10, note: 'ten back' }, ms);
      expect(fromRecipient.status).toBe(200);
      expect((await disputeOf(paymentId, '/offers', { proposed_by: 'recipient', refund_amount: 'ten' }, ms)).status).toBe(400);
      const fromPayer = await disputeOf(paymentId, '/offers', { proposed_by: 'payer', refund_amount: 40 }, ms);
      const shown = (b: { dispute: unknown; milestones: { dispute: unknown }[] }) =>
        (ms ? b.milestones[0].dispute : b.dispute) as {
          offers: { id: string }[];
        };
      const [recipientOffer, payerOffer] = shown(fromPayer.body).offers.map((o) => o.id);
      expect((await disputeOf(paymentId, `/offers/${payerOffer}/decline`, { party: 'recipient' }, ms)).status).toBe(200);
      expect((await disputeOf(paymentId, `/offers/${payerOffer}/decline`, { party: 'recipient' }, ms)).status).toBe(409);
      expect((await disputeOf(paymentId, `/offers/${recipientOffer}/accept`, { party: 'recipient' }, ms)).status).toBe(409);
      expect((await disputeOf(paymentId, '/offers/of_NOPE/accept', { party: 'payer' }, ms)).status).toBe(404);
      expect((await disputeOf(paymentId, `/offers/${recipientOffer}/accept`, { party: 'payer' }, ms)).status).toBe(200);
      // A withdrawal, of a second dispute (of the other milestone, or a new payment's).
      const again = other ?? ((await send(create, '/api/v1/payments', { key, body: validPayment({ amount: 90 }) })).body.id as string);
      const target = other ? paymentId : again;
      if (!other) await transition('deposit', target);
      const reopened = other
        ? await onMilestoneOf(target, 'dispute', other, { opened_by: 'recipient' })
        : await transition('dispute', target, { opened_by: 'recipient' });
      expect(reopened.status).toBe(200);
      expect((await disputeOf(target, '/withdraw', { party: 'payer' }, other)).status).toBe(409);
      expect((await disputeOf(target, '/withdraw', { party: 'recipient' }, other)).status).toBe(200);
    }

    // Erasure: finished payments only; the history then ends with the redaction (an entry without an event).
    const redact = 'post /api/v1/payments/{id}/redact';
    expect((await send(redact, `/api/v1/payments/${p6}/redact`, { key })).status).toBe(200);
    expect((await send(redact, `/api/v1/payments/${await newPayment()}/redact`, { key })).status).toBe(409);
    expect((await send(redact, '/api/v1/payments/pay_NOPE/redact', { key })).status).toBe(404);
    const redacted = await send('get /api/v1/payments/{id}/history', `/api/v1/payments/${p6}/history`, { key });
    expect(redacted.body.data.at(-1)).toMatchObject({ action: 'redact', event: null });
    expect((await send('get /api/v1/balance', '/api/v1/balance', { key })).status).toBe(200);
    expect((await send('get /api/v1/balance', '/api/v1/balance?currency=USD', { key })).status).toBe(400);
    const entries = 'get /api/v1/ledger_entries';
    expect((await send(entries, `/api/v1/ledger_entries?payment_id=${p6}`, { key })).status).toBe(200);
    expect((await send(entries, '/api/v1/ledger_entries?type=bogus', { key })).status).toBe(400);

    // Events.
    const events = await send('get /api/v1/events', `/api/v1/events?payment_id=${id}`, { key });
    expect(events.status).toBe(200);
    expect((await send('get /api/v1/events', '/api/v1/events?type=payment.sideways', { key })).status).toBe(400);
    expect((await send('get /api/v1/events/{id}', `/api/v1/events/${events.body.data[0].id}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/events/{id}', '/api/v1/events/evt_NOPE', { key })).status).toBe(404);

    // Webhooks.
    const configured = await send('post /api/v1/webhooks/configure', '/api/v1/webhooks/configure', { key, body: { url: receiver.url } });
    expect(configured.status).toBe(201);
    const wh = configured.body.webhook.id as string;
    expect((await send('post /api/v1/webhooks/configure', '/api/v1/webhooks/configure', { key, body: { url: 'ftp://x' } })).status).toBe(
      400,
    );
    expect((await send('get /api/v1/webhooks', '/api/v1/webhooks', { key })).status).toBe(200);
    expect((await send('get /api/v1/webhooks', '/api/v1/webhooks?page=2', { key })).status).toBe(400);
    const sent = await send('post /api/v1/webhooks/{id}/test', `/api/v1/webhooks/${wh}/test`, { key });
    expect(sent.status).toBe(202);
    expect((await send('post /api/v1/webhooks/{id}/test', '/api/v1/webhooks/wh_NOPE/test', { key })).status).toBe(404);
    const deliveryId = sent.body.delivery_id as string;
    await eventually(async () => (receiver.received.length > 0 ? true : undefined));
    const deliveries = `/api/v1/webhooks/${wh}/deliveries`;
    expect((await send('get /api/v1/webhooks/{id}/deliveries', `${deliveries}?limit=5`, { key })).status).toBe(200);
    expect((await send('get /api/v1/webhooks/{id}/deliveries', `${deliveries}?status=bogus`, { key })).status).toBe(400);
    const one = 'get /api/v1/webhooks/{id}/deliveries/{delivery_id}';
    expect((await send(one, `${deliveries}/${deliveryId}`, { key })).status).toBe(200);
    expect((await send(one, `${deliveries}/dlv_NOPE`, { key })).status).toBe(404);
    expect((await send('get /api/v1/webhooks/{id}/deliveries', `${deliveries}?payment_id=${id}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/webhooks/{id}', `/api/v1/webhooks/${wh}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/webhooks/{id}', '/api/v1/webhooks/wh_NOPE', { key })).status).toBe(404);
    // One series at a time: the test event's series has ended once its attempt is logged.
    await eventually(async () =>
      (await stack.db('webhook_deliveries').where({ id: deliveryId }).first())?.series === null ? true : undefined,
    );
    const resend = 'post /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend';
    expect((await send(resend, `${deliveries}/${deliveryId}/resend`, { key })).status).toBe(202);
    expect((await send(resend, `${deliveries}/dlv_NOPE/resend`, { key })).status).toBe(404);
    const recover = 'post /api/v1/webhooks/{id}/recover';
    expect((await send(recover, `/api/v1/webhooks/${wh}/recover`, { key, body: { since: '2026-01-01T00:00:00Z' } })).status).toBe(202);
    expect((await send(recover, `/api/v1/webhooks/${wh}/recover`, { key, body: { since: 'yesterday' } })).status).toBe(400);
    const rotate = 'post /api/v1/webhooks/{id}/rotate-secret';
    expect((await send(rotate, `/api/v1/webhooks/${wh}/rotate-secret`, { key, body: { expire_previous_in_seconds: 0 } })).status).toBe(200);
    expect((await send(rotate, `/api/v1/webhooks/${wh}/rotate-secret`, { key, body: { expire_previous_in_seconds: 'soon' } })).status).toBe(
      400,
    );
    expect((await send('patch /api/v1/webhooks/{id}', `/api/v1/webhooks/${wh}`, { key, body: { active: false } })).status).toBe(200);
    expect((await send('patch /api/v1/webhooks/{id}', `/api/v1/webhooks/${wh}`, { key, body: { active: 'no' } })).status).toBe(400);
    expect((await send('delete /api/v1/webhooks/{id}', `/api/v1/webhooks/${wh}`, { key })).status).toBe(200);
    expect((await send('delete /api/v1/webhooks/{id}', `/api/v1/webhooks/${wh}`, { key })).status).toBe(404);
    expect((await send('get /api/v1/webhooks/{id}/deliveries', deliveries, { key })).status).toBe(200);

    // Recipients and their bank accounts (docs/concepts.md, "Recipients"; docs/payouts.md).
    const recipients = 'post /api/v1/recipients';
    const rcp = await send(recipients, '/api/v1/recipients', { key, body: { email: 'seller@example.com', country: 'DE' } });
    expect(rcp.status).toBe(201);
    const rid = rcp.body.id as string;
    expect((await send(recipients, '/api/v1/recipients', { key, body: { email: 'seller@example.com', country: 'XX' } })).status).toBe(400);
    expect((await send('get /api/v1/recipients', '/api/v1/recipients', { key })).status).toBe(200);
    expect((await send('get /api/v1/recipients', '/api/v1/recipients', {})).status).toBe(401);
    expect((await send('get /api/v1/recipients/{id}', `/api/v1/recipients/${rid}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/recipients/{id}', '/api/v1/recipients/rcp_NOPE', { key })).status).toBe(404);
    expect((await send('patch /api/v1/recipients/{id}', `/api/v1/recipients/${rid}`, { key, body: { name: 'Seller' } })).status).toBe(200);
    expect((await send('patch /api/v1/recipients/{id}', '/api/v1/recipients/rcp_NOPE', { key, body: { name: 'Seller' } })).status).toBe(
      404,
    );
    const verify = 'post /api/v1/recipients/{id}/verification';
    expect((await send(verify, `/api/v1/recipients/${rid}/verification`, { key, body: { status: 'verified' } })).status).toBe(200);
    expect((await send(verify, `/api/v1/recipients/${rid}/verification`, { key, body: { status: 'maybe' } })).status).toBe(400);
    const rbalance = 'get /api/v1/recipients/{id}/balance';
    expect((await send(rbalance, `/api/v1/recipients/${rid}/balance`, { key })).status).toBe(200);
    expect((await send(rbalance, '/api/v1/recipients/rcp_NOPE/balance', { key })).status).toBe(404);
    const accounts = `/api/v1/recipients/${rid}/bank_accounts`;
    const ba = await send('post /api/v1/recipients/{id}/bank_accounts', accounts, {
      key,
      body: { account_holder_name: 'Seller', country: 'DE', currency: 'EUR', iban: 'DE89370400440532013000' },
    });
    expect(ba.status).toBe(201);
    const badIban = { account_holder_name: 'Seller', country: 'DE', currency: 'EUR', iban: 'DE00370400440532013000' };
    expect((await send('post /api/v1/recipients/{id}/bank_accounts', accounts, { key, body: badIban })).status).toBe(400);
    expect((await send('get /api/v1/recipients/{id}/bank_accounts', accounts, { key })).status).toBe(200);
    expect((await send('get /api/v1/recipients/{id}/bank_accounts', '/api/v1/recipients/rcp_NOPE/bank_accounts', { key })).status).toBe(
      404,
    );
    const dropBa = 'delete /api/v1/recipients/{id}/bank_accounts/{ba}';
    expect((await send(dropBa, `${accounts}/${ba.body.id}`, { key })).status).toBe(200);
    expect((await send(dropBa, `${accounts}/ba_NOPE`, { key })).status).toBe(404);
    const redactRecipient = 'post /api/v1/recipients/{id}/redact';
    expect((await send(redactRecipient, `/api/v1/recipients/${rid}/redact`, { key })).status).toBe(200);
    expect((await send(redactRecipient, '/api/v1/recipients/rcp_NOPE/redact', { key })).status).toBe(404);

    // Payouts and bank files (docs/payouts.md), for a verified recipient with money available.
    const payee = (await stack.http.post('/api/v1/recipients', { key, body: { email: 'payee@example.com', country: 'DE' } })).body
      .id as string;
    await stack.http.post(`/api/v1/recipients/${payee}/verification`, { key, body: { status: 'verified' } });
    const payeeAccount = { account_holder_name: 'Payee', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' };
    expect((await stack.http.post(`/api/v1/recipients/${payee}/bank_accounts`, { key, body: payeeAccount })).status).toBe(201);
    const { recipient_email: _email, ...paid } = validPayment({ amount: 20, currency: 'EUR', recipient: payee });
    const funding = (await stack.http.post('/api/v1/payments', { key, body: paid })).body.id as string;
    for (const action of ['deposit', 'approve', 'release'])
      expect((await stack.http.post(`/api/v1/payments/${funding}/${action}`, { key, body: {} })).status).toBe(200);
    const payouts = 'post /api/v1/payouts';
    const po = await send(payouts, '/api/v1/payouts', { key, body: { recipient: payee, currency: 'EUR', amount: 5 } });
    expect(po.status).toBe(201);
    expect((await send(payouts, '/api/v1/payouts', { key, body: { recipient: payee, currency: 'EUR', amount: 100 } })).status).toBe(409);
    expect((await send(payouts, '/api/v1/payouts', { key, body: { recipient: payee, currency: 'EUR', amount: -1 } })).status).toBe(400);
    expect((await send('get /api/v1/payouts', `/api/v1/payouts?recipient=${payee}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/payouts', '/api/v1/payouts?status=lost', { key })).status).toBe(400);
    expect((await send('get /api/v1/payouts/{id}', `/api/v1/payouts/${po.body.id}`, { key })).status).toBe(200);
    expect((await send('get /api/v1/payouts/{id}', '/api/v1/payouts/po_NOPE', { key })).status).toBe(404);
    const cancelPayout = 'post /api/v1/payouts/{id}/cancel';
    expect((await send(cancelPayout, `/api/v1/payouts/${po.body.id}/cancel`, { key })).status).toBe(200);
    expect((await send(cancelPayout, `/api/v1/payouts/${po.body.id}/cancel`, { key })).status).toBe(409);
    const payoutClock = 'post /api/v1/test_helpers/payouts/{id}/advance';
    expect((await send(payoutClock, `/api/v1/test_helpers/payouts/${po.body.id}/advance`, { key, body: { seconds: 60 } })).status).toBe(
      200,
    );
    expect((await send(payoutClock, `/api/v1/test_helpers/payouts/${po.body.id}/advance`, { key, body: { seconds: 0 } })).status).toBe(400);
    // Funding by bank transfer (docs/bank.md): a simulated credit naming no payment is the account's
    // unapplied credit, then applied to a payment funded by transfer.
    const byTransfer = await stack.http.post('/api/v1/payments', {
      key,
      body: validPayment({ amount: 20, currency: 'EUR', funding: 'bank_transfer' }),
    });
    expect(byTransfer.status, JSON.stringify(byTransfer.body)).toBe(201);
    const simulated = 'post /api/v1/test_helpers/bank_transfers';
    const stray = await send(simulated, '/api/v1/test_helpers/bank_transfers', {
      key,
      body: { reference: 'no reference of ours', amount: 20, currency: 'EUR' },
    });
    expect(stray.status, JSON.stringify(stray.body)).toBe(201);
    expect((await send(simulated, '/api/v1/test_helpers/bank_transfers', { key, body: { amount: -1, currency: 'EUR' } })).status).toBe(400);
    expect((await send('get /api/v1/bank_credits', '/api/v1/bank_credits?status=unapplied', { key })).status).toBe(200);
    expect((await send('get /api/v1/bank_credits', '/api/v1/bank_credits?status=lost', { key })).status).toBe(400);
    const apply = 'post /api/v1/bank_credits/{id}/apply';
    const credit = (stray.body.bank_credits as { id: string }[])[0].id;
    const applied = await send(apply, `/api/v1/bank_credits/${credit}/apply`, { key, body: { payment: byTransfer.body.id } });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await send(apply, `/api/v1/bank_credits/${credit}/apply`, { key, body: { payment: byTransfer.body.id } })).status).toBe(409);
    // Returned (docs/bank.md, "Returns"): test mode's simulated bank pays it at once; a credit returned already is 409.
    const giveBack = 'post /api/v1/bank_credits/{id}/return';
    const other = await stack.http.post('/api/v1/test_helpers/bank_transfers', {
      key,
      body: { reference: 'no reference of ours', amount: 5, currency: 'EUR' },
    });
    const returned = await send(giveBack, `/api/v1/bank_credits/${other.body.bank_credits[0].id}/return`, { key });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect((await send(giveBack, `/api/v1/bank_credits/${credit}/return`, { key })).status).toBe(409);
    const fixtures = path.join(__dirname, '..', 'fixtures', 'bank-files');
    const camt = fs.readFileSync(path.join(fixtures, 'camt.054.001.08-debits-and-return.xml'), 'utf8');
    const live = acct.live_api_key;
    // Retired (docs/bank.md): the bank's files come through the operator's inbox, never an API key.
    const bankFiles = 'post /api/v1/bank_files';
    expect((await send(bankFiles, '/api/v1/bank_files', { key: live, raw: camt, contentType: 'application/xml' })).status).toBe(410);
    expect((await send(bankFiles, '/api/v1/bank_files', { key, raw: camt, contentType: 'application/xml' })).status).toBe(410);
    expect((await send('get /api/v1/bank_files/{id}', '/api/v1/bank_files/bf_NOPE', { key: live })).status).toBe(404);

    // API keys.
    const made = await send('post /api/v1/api-keys', '/api/v1/api-keys', { key, body: { mode: 'test' } });
    expect(made.status).toBe(201);
    expect((await send('post /api/v1/api-keys', '/api/v1/api-keys', { key, body: { mode: 'live' } })).status).toBe(403);
    expect((await send('get /api/v1/api-keys', '/api/v1/api-keys', { key })).status).toBe(200);
    expect((await send('get /api/v1/api-keys', '/api/v1/api-keys', {})).status).toBe(401);
    expect((await send('delete /api/v1/api-keys/{id}', `/api/v1/api-keys/${made.body.id}`, { key })).status).toBe(200);
    expect((await send('delete /api/v1/api-keys/{id}', '/api/v1/api-keys/key_NOPE', { key })).status).toBe(404);
  });

  it('exercised every documented operation with an answer of success and (but the probes) a refusal', () => {
    const missing: string[] = [];
    // No success to send here: the retired POST answers 410 only (docs/bank.md), and a bank file is seen by
    // a tenant only once the operator's inbox took one touching its payouts, which
    // test/payouts-live.test.ts does (its `seen`, 200 with the tenant's entries).
    const NO_SUCCESS_HERE = ['post /api/v1/bank_files', 'get /api/v1/bank_files/{id}'];
    for (const op of documented) {
      const seen = exchanges.filter((e) => e.operation === op);
      if (!NO_SUCCESS_HERE.includes(op) && !seen.some((e) => e.status < 300)) missing.push(`${op}: no success`);
      if (!/^get \/(healthz|readyz)$/.test(op) && !seen.some((e) => e.status >= 400)) missing.push(`${op}: no refusal`);
    }
    expect(missing).toEqual([]);
    expect(exchanges.filter((e) => !documented.includes(e.operation)).map((e) => e.operation)).toEqual([]);
  });

  it('Prism found no answer off the document: every status, header and body as documented', () => {
    const off = exchanges.flatMap((e) =>
      e.violations
        .filter((v) => v.location[0] === 'response')
        .map((v) => `${e.operation} → ${e.status}: ${v.location.join('.')} ${v.message}`),
    );
    expect(off).toEqual([]);
    // Prism judged them (its request checks fire on the invalid requests sent on purpose).
    expect(exchanges.some((e) => e.violations.some((v) => v.location[0] === 'request'))).toBe(true);
  });
});
