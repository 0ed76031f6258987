/**
 * Recipients (docs/concepts.md, "Recipients"): created per account and mode, read, listed, changed;
 * their verification reported by the platform with `payouts_enabled` derived; every change a
 * `recipient.updated` delivered only to configurations that name it. Bad input is a 4xx that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useAccount, useStack } from './helpers/stack';
import { startReceiver } from './helpers/receiver';
import { FAST_WEBHOOK_RETRIES, configureWebhook } from './helpers/webhooks';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });
const account = useAccount(stack);
const other = useAccount(stack);

const create = (key: string, body: Record<string, unknown> = {}) =>
  stack.http.post('/api/v1/recipients', { key, body: { email: 'Seller@Example.com', country: 'FR', ...body } });

describe('the recipient resource', () => {
  it('creates an unverified recipient with payouts disabled, and reads it back', async () => {
    const res = await create(account.test_api_key, { name: 'Vintage Cameras', type: 'company', metadata: { seller: '42' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'recipient',
      email: 'seller@example.com',
      name: 'Vintage Cameras',
      country: 'FR',
      type: 'company',
      metadata: { seller: '42' },
      livemode: false,
      verification: {
        status: 'unverified',
        requirements: { currently_due: [], past_due: [], pending_verification: [], errors: [] },
        disabled_reason: null,
      },
      payouts_enabled: false,
    });
    expect(res.body.id).toMatch(/^rcp_[0-9A-Z]{26}$/);
    const read = await stack.http.get(`/api/v1/recipients/${res.body.id}`, { key: account.test_api_key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const defaults = await create(account.test_api_key);
    expect(defaults.body).toMatchObject({ type: 'individual', name: null, metadata: {} });
  });

  it('lists the caller’s recipients of its mode only, newest first', async () => {
    const a = (await create(account.test_api_key)).body.id;
    const b = (await create(account.test_api_key)).body.id;
    const live = (await create(account.live_api_key)).body.id;
    const theirs = (await create(other.test_api_key)).body.id;
    const list = await stack.http.get('/api/v1/recipients?limit=100', { key: account.test_api_key });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((r: { id: string }) => r.id);
    expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(a));
    expect(ids).not.toContain(live);
    expect(ids).not.toContain(theirs);
  });

  it('changes e-mail, name and metadata with PATCH', async () => {
    const id = (await create(account.test_api_key)).body.id;
    const res = await stack.http.patch(`/api/v1/recipients/${id}`, {
      key: account.test_api_key,
      body: { email: 'new@example.com', name: 'New Name', metadata: { k: 'v' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: 'new@example.com', name: 'New Name', metadata: { k: 'v' }, country: 'FR' });
  });

  it('derives payouts_enabled: verified with nothing past due', async () => {
    const id = (await create(account.test_api_key)).body.id;
    const report = (body: unknown) => stack.http.post(`/api/v1/recipients/${id}/verification`, { key: account.test_api_key, body });
    const pending = await report({ status: 'pending', requirements: { pending_verification: ['individual.id_number'] } });
    expect(pending.status).toBe(200);
    expect(pending.body.verification.status).toBe('pending');
    expect(pending.body.verification.requirements.pending_verification).toEqual(['individual.id_number']);
    expect(pending.body.payouts_enabled).toBe(false);
    const pastDue = await report({
      status: 'verified',
      requirements: { past_due: ['external_account'] },
      disabled_reason: 'requirements.past_due',
    });
    expect(pastDue.body).toMatchObject({
      payouts_enabled: false,
      verification: { status: 'verified', disabled_reason: 'requirements.past_due' },
    });
    const verified = await report({ status: 'verified' });
    expect(verified.body.payouts_enabled).toBe(true);
    expect(verified.body.verification.requirements.past_due).toEqual([]);
    const rejected = await report({ status: 'rejected', disabled_reason: 'rejected.fraud' });
    expect(rejected.body).toMatchObject({
      payouts_enabled: false,
      verification: { status: 'rejected', disabled_reason: 'rejected.fraud' },
    });
  });
});

describe('bad input: a clear 4xx, nothing changed', () => {
  it('refuses an unknown country, a lower-case or alpha-3 one, and a bad type, creating nothing', async () => {
    const before = (await stack.http.get('/api/v1/recipients?limit=100', { key: other.live_api_key })).body.data.length;
    for (const country of ['XX', 'fr', 'FRA', '', 12]) {
      const res = await create(other.live_api_key, { country });
      expect(res.status, String(country)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('country');
    }
    const badType = await create(other.live_api_key, { type: 'trust' });
    expect(badType.status).toBe(400);
    expect(badType.body.error.details[0].field).toBe('type');
    const after = (await stack.http.get('/api/v1/recipients?limit=100', { key: other.live_api_key })).body.data.length;
    expect(after).toBe(before);
  });

  it('answers another account’s recipient 404 on every route, and changes nothing', async () => {
    const theirs = (await create(other.test_api_key)).body;
    const key = account.test_api_key;
    const answers = [
      await stack.http.get(`/api/v1/recipients/${theirs.id}`, { key }),
      await stack.http.patch(`/api/v1/recipients/${theirs.id}`, { key, body: { name: 'Mine now' } }),
      await stack.http.post(`/api/v1/recipients/${theirs.id}/verification`, { key, body: { status: 'verified' } }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.message).toBe('no such recipient');
    }
    expect((await stack.http.get(`/api/v1/recipients/${theirs.id}`, { key: other.test_api_key })).body).toEqual(theirs);
  });

  it('answers a recipient of the other mode 404, saying which mode holds it', async () => {
    const live = (await create(account.live_api_key)).body.id;
    const res = await stack.http.get(`/api/v1/recipients/${live}`, { key: account.test_api_key });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain(`${live} exists in live mode`);
  });

  it('refuses a verification status it does not know and an unknown field', async () => {
    const r = (await create(account.test_api_key)).body;
    const bad = await stack.http.post(`/api/v1/recipients/${r.id}/verification`, {
      key: account.test_api_key,
      body: { status: 'approved' },
    });
    expect(bad.status).toBe(400);
    const extra = await stack.http.patch(`/api/v1/recipients/${r.id}`, { key: account.test_api_key, body: { country: 'DE' } });
    expect(extra.status).toBe(400);
    expect((await stack.http.get(`/api/v1/recipients/${r.id}`, { key: account.test_api_key })).body).toEqual(r);
  });
});

describe('recipient.updated', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let everyPaymentEvent: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    everyPaymentEvent = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await everyPaymentEvent?.close();
  });

  it('is delivered on each change to the configurations that name it, and to no other', async () => {
    const fresh = await stack.newAccount();
    const key = fresh.test_api_key;
    await configureWebhook(stack, key, receiver.url, ['recipient.updated']);
    // No events named: every payment event, and no recipient's.
    const defaults = await configureWebhook(stack, key, everyPaymentEvent.url);
    expect(defaults.events).not.toContain('recipient.updated');
    const id = (await create(key)).body.id;
    await stack.http.post(`/api/v1/recipients/${id}/verification`, { key, body: { status: 'pending' } });
    const verified = (await stack.http.post(`/api/v1/recipients/${id}/verification`, { key, body: { status: 'verified' } })).body;
    // The same report again changes nothing: no event.
    await stack.http.post(`/api/v1/recipients/${id}/verification`, { key, body: { status: 'verified' } });
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(2);
    const bodies = receiver.received.map((r) => r.body).sort((a, b) => a.sequence - b.sequence);
    expect(Object.keys(bodies[1])).toEqual(['event', 'recipient_id', 'timestamp', 'sequence', 'data']);
    expect(bodies[0]).toMatchObject({
      event: 'recipient.updated',
      recipient_id: id,
      sequence: 2,
      data: { verification: { status: 'pending' } },
    });
    expect(bodies[1]).toMatchObject({ event: 'recipient.updated', recipient_id: id, sequence: 3, data: verified });
    expect(receiver.received[0].headers['webhook-signature']).toBeTruthy();
    expect(everyPaymentEvent.received).toHaveLength(0);
  });

  it('is a name a configuration may take', async () => {
    const res = await stack.http.post('/api/v1/webhooks/configure', {
      key: account.test_api_key,
      body: { url: receiver.url, events: ['recipient.updated', 'payment.released'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.webhook.events).toEqual(['recipient.updated', 'payment.released']);
  });
});
