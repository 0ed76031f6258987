/**
 * The issue's black-box flow (docs/money.md, "Recipients' accounts"): a recipient, a payment naming
 * it, released while its payouts are not enabled → its net lands in `pending`; the verification that
 * enables payouts moves all of it to `available` in one entry; the balances `as_of` before and after
 * answer as they stood. A payment without a recipient keeps crediting recipient_payable.
 */
import { describe, expect, it } from 'vitest';
import { unaccountedLeaves } from '../src/audit/trailSources.repository';
import { auditScheduleId } from '../src/audit/audit.service';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);

const pause = () => new Promise((r) => setTimeout(r, 20));

async function act(key: string, id: string, action: string) {
  const res = await stack.http.post(`/api/v1/payments/${id}/${action}`, { key, body: {} });
  expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

describe('a release to a recipient', () => {
  it('lands in pending while unverified, moves to available in one entry on verification, and as_of tells both', async () => {
    const key = account.test_api_key;
    const recipient = (await stack.http.post('/api/v1/recipients', { key, body: { email: 'studio@example.com', country: 'FR' } })).body;
    const { recipient_email: _e, ...body } = validPayment({ amount: 100, platform_fee: 5, recipient: recipient.id });
    const payment = (await stack.http.post('/api/v1/payments', { key, body })).body;
    await act(key, payment.id, 'deposit');
    await act(key, payment.id, 'approve');
    const released = await act(key, payment.id, 'release');
    expect(released).toMatchObject({ status: 'released', amount_released: 100, fee_collected: 5 });

    // The release entry: custody of this payment out, the net to the recipient's pending, the fee.
    const ledger = (await stack.http.get(`/api/v1/payments/${payment.id}/ledger`, { key })).body.data;
    const release = ledger.find((e: { type: string }) => e.type === 'release');
    expect(release.recipient_id).toBe(recipient.id);
    expect(release.postings).toEqual([
      { account: 'custody', address: `escrow:${payment.id}`, amount: -100 },
      { account: 'platform_fees', address: 'platform_fees', amount: 5 },
      { account: 'recipient_pending', address: `recipient:${recipient.id}:pending`, amount: 95 },
    ]);
    const balance = (q = '') => stack.http.get(`/api/v1/recipients/${recipient.id}/balance${q}`, { key });
    const pendingView = { currency: 'USD', pending: 95, available: 0, in_transit: 0, paid_out: 0 };
    expect((await balance()).body).toEqual({ object: 'recipient_balance', recipient: recipient.id, balances: [pendingView] });
    const tenant = { currency: 'USD', deposited: 100, held: 0, released: 100, released_net: 95, refunded: 0, fees: 5 };
    expect((await stack.http.get('/api/v1/balance', { key })).body.balances).toEqual([tenant]);

    await pause();
    const beforeVerification = new Date().toISOString();
    await pause();
    const verified = await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } });
    expect(verified.body.payouts_enabled).toBe(true);

    const availableView = { ...pendingView, pending: 0, available: 95 };
    expect((await balance()).body.balances).toEqual([availableView]);
    // One entry moved it, naming the recipient and no payment.
    const moves = (await stack.http.get('/api/v1/ledger_entries?type=make_available', { key })).body.data;
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ payment_id: null, milestone_id: null, recipient_id: recipient.id, currency: 'USD' });
    expect(moves[0].postings).toEqual([
      { account: 'recipient_pending', address: `recipient:${recipient.id}:pending`, amount: -95 },
      { account: 'recipient_available', address: `recipient:${recipient.id}:available`, amount: 95 },
    ]);
    // Recorded in the custody trail as every entry is, by a worker (the API's role cannot write the
    // trail: docs/audit.md) before the next tree head, and that leaf accounted for by the entry.
    await eventually(
      async () => {
        await stack.client.schedule.getHandle(auditScheduleId(stack.taskQueue)).trigger();
        return (await stack.db('audit_leaves').where({ entry_key: `ledger:${moves[0].id}` })).length > 0 ? true : undefined;
      },
      30_000,
      'the entry’s leaf',
    );
    expect(await stack.db('audit_leaves').where({ entry_key: `ledger:${moves[0].id}` })).toHaveLength(1);
    expect((await unaccountedLeaves(stack.db)).filter((l) => l.reason.includes(moves[0].id))).toEqual([]);
    // The tenant's balance is unchanged by a move between a recipient's own accounts.
    expect((await stack.http.get('/api/v1/balance', { key })).body.balances).toEqual([tenant]);

    // As they stood: before the verification, before the payment, and now.
    expect((await balance(`?as_of=${encodeURIComponent(beforeVerification)}`)).body.balances).toEqual([pendingView]);
    expect((await balance(`?as_of=${encodeURIComponent(new Date().toISOString())}`)).body.balances).toEqual([availableView]);
    expect((await balance(`?as_of=${encodeURIComponent(payment.created_at)}`)).body.balances).toEqual([]);
    const tenantAsOf = await stack.http.get(`/api/v1/balance?as_of=${encodeURIComponent(beforeVerification)}`, { key });
    expect(tenantAsOf.body.balances).toEqual([tenant]);
    const deposit = ledger.find((e: { type: string }) => e.type === 'deposit');
    const atDeposit = await stack.http.get(`/api/v1/balance?as_of=${encodeURIComponent(deposit.created_at)}`, { key });
    expect(atDeposit.body.balances).toEqual([{ ...tenant, held: 100, released: 0, released_net: 0, fees: 0 }]);

    expect(await stack.services.ledger.verify(account.account_id, { workflows: false })).toEqual([]);
    // Verified again: nothing more to move.
    await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } });
    expect((await stack.http.get('/api/v1/ledger_entries?type=make_available', { key })).body.data).toHaveLength(1);
  });

  it('makes a release available at once when payouts are enabled, and credits recipient_payable without a recipient', async () => {
    const tenant = await stack.newAccount();
    const key = tenant.test_api_key;
    const recipient = (await stack.http.post('/api/v1/recipients', { key, body: { email: 'ok@example.com', country: 'US' } })).body;
    await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } });
    const { recipient_email: _e, ...named } = validPayment({ amount: 10, recipient: recipient.id });
    const a = (await stack.http.post('/api/v1/payments', { key, body: named })).body;
    const b = (await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: 7 }) })).body;
    for (const id of [a.id, b.id]) for (const action of ['deposit', 'approve', 'release']) await act(key, id, action);
    expect((await stack.http.get(`/api/v1/recipients/${recipient.id}/balance`, { key })).body.balances).toEqual([
      { currency: 'USD', pending: 0, available: 10, in_transit: 0, paid_out: 0 },
    ]);
    // Through pending, always: the release credits it, and a transfer of the recipient's own, dated at
    // the release, moves that net to available (docs/money.md, "Pending, then available").
    const release = (await stack.http.get(`/api/v1/payments/${a.id}/ledger`, { key })).body.data.find(
      (e: { type: string }) => e.type === 'release',
    );
    expect(release.postings).toContainEqual({ account: 'recipient_pending', address: `recipient:${recipient.id}:pending`, amount: 10 });
    const moves = (await stack.http.get('/api/v1/ledger_entries?type=make_available', { key })).body.data;
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ payment_id: null, recipient_id: recipient.id, created_at: release.created_at });
    expect(moves[0].postings).toEqual([
      { account: 'recipient_pending', address: `recipient:${recipient.id}:pending`, amount: -10 },
      { account: 'recipient_available', address: `recipient:${recipient.id}:available`, amount: 10 },
    ]);
    expect(await stack.services.ledger.verify(tenant.account_id, { workflows: false })).toEqual([]);
    const plain = (await stack.http.get(`/api/v1/payments/${b.id}/ledger`, { key })).body.data.find(
      (e: { type: string }) => e.type === 'release',
    );
    expect(plain.recipient_id).toBeNull();
    expect(plain.postings).toEqual([
      { account: 'custody', address: `escrow:${b.id}`, amount: -7 },
      { account: 'recipient_payable', address: 'recipient_payable', amount: 7 },
    ]);
    expect((await stack.http.get('/api/v1/balance', { key })).body.balances[0]).toMatchObject({ released: 17, released_net: 17, held: 0 });
  });

  it('answers another account’s recipient balance 404, and a bad as_of 400', async () => {
    const mine = (
      await stack.http.post('/api/v1/recipients', { key: account.test_api_key, body: { email: 'x@example.com', country: 'FR' } })
    ).body;
    const stranger = await stack.newAccount();
    const res = await stack.http.get(`/api/v1/recipients/${mine.id}/balance`, { key: stranger.test_api_key });
    expect(res.status).toBe(404);
    const bad = await stack.http.get(`/api/v1/recipients/${mine.id}/balance?as_of=yesterday`, { key: account.test_api_key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('as_of');
    expect((await stack.http.get('/api/v1/balance?as_of=2026-13-01', { key: account.test_api_key })).status).toBe(400);
  });
});
