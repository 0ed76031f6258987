/**
 * Loopback reach (docs/security.md, "Loopback only to the ports listed"): while WEBHOOK_ALLOW_LOOPBACK
 * is on, a test-mode webhook reaches loopback only on a port WEBHOOK_LOOPBACK_PORTS lists, never a
 * port of the stack's own (the worker's Temporal Core metrics port included), whatever the spelling
 * of the address; and the delivery log keeps no excerpt of a loopback receiver's answer.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreMetricsAddress } from '../src/platform/lib/metrics';
import { eventually, startStack, useStack, validPayment, type Stack, type TestAccount } from './helpers/stack';

/** A local service answering what an internal admin API would: the secret a test key must never read. */
const SECRET = '{"internal_admin_token":"LOCAL-SECRET-42"}';

async function localService() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(SECRET));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every spelling of a loopback host an attacker may try: names, IPv4 forms, IPv6 and its IPv4-mapped, -translated and -compatible forms. */
const LOOPBACK_HOSTS = [
  '127.0.0.1',
  '127.0.0.2',
  '127.1',
  '0x7f.0.0.1',
  '2130706433',
  'localhost',
  'LOCALHOST',
  'api.localhost',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:127.0.0.1]',
  '[::FFFF:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:0:127.0.0.1]',
  '[::ffff:0:7f00:1]',
  '[0:0:0:0:ffff:0:7f00:2]',
  '[::127.0.0.1]',
  '[::7f00:1]',
];

let admin: Awaited<ReturnType<typeof localService>>;
let receiver: Awaited<ReturnType<typeof localService>>;
let listed: Stack;
beforeAll(async () => {
  [admin, receiver] = [await localService(), await localService()];
  listed = await startStack({ WEBHOOK_LOOPBACK_PORTS: String(receiver.port), WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT: '2s' });
});
afterAll(async () => {
  await listed?.stop();
  await Promise.all([admin?.close(), receiver?.close()]);
});

const configure = (stack: Stack, acct: TestAccount, url: string) =>
  stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url } });

/** The delivery of a new payment's `payment.created` to configuration `id`, once it ended. */
async function endedDelivery(stack: Stack, acct: TestAccount, id: string) {
  expect((await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).status).toBe(201);
  return eventually(
    async () => {
      const [d] = (await stack.http.get(`/api/v1/webhooks/${id}/deliveries`, { key: acct.test_api_key })).body.data;
      return d && d.status !== 'pending' ? d : undefined;
    },
    20_000,
    'an ended delivery',
  );
}

describe('WEBHOOK_LOOPBACK_PORTS', () => {
  it('configure refuses a loopback port it does not list, in every spelling of loopback, with a 400 naming the setting', async () => {
    const acct = await listed.newAccount();
    for (const host of LOOPBACK_HOSTS) {
      for (const scheme of ['http', 'https']) {
        const url = `${scheme}://${host}:${admin.port}/admin/config`;
        const res = await configure(listed, acct, url);
        expect(res.status, url).toBe(400);
        expect(res.body.error.code, url).toBe('invalid_request');
        expect(res.body.error.details?.[0], url).toMatchObject({
          field: 'url',
          message: expect.stringContaining('WEBHOOK_LOOPBACK_PORTS'),
        });
      }
    }
    expect((await listed.http.get('/api/v1/webhooks', { key: acct.test_api_key })).body.data).toEqual([]);
    expect(admin.hits).toEqual([]);
    // The port it lists is reachable, by name and by address.
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
      expect((await configure(listed, acct, `http://${host}:${receiver.port}/hook`)).status, host).toBe(201);
    }
  });

  it('a configuration written past the check to an unlisted port gets one refused attempt, and nothing reaches the port', async () => {
    const acct = await listed.newAccount();
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:0:127.0.0.1]', '[::ffff:127.0.0.1]']) {
      const id = `wh_planted${randomBytes(6).toString('hex')}`;
      await listed.db('webhooks').insert({
        id,
        account_id: acct.account_id,
        livemode: false,
        url: `http://${host}:${admin.port}/admin/config`,
        secret: `whsec_${randomBytes(24).toString('base64')}`,
        events: ['payment.created'],
        active: true,
      });
      const delivery = await endedDelivery(listed, acct, id);
      expect(delivery.status, host).toBe('failed');
      expect(delivery.attempts, host).toHaveLength(1);
      expect(delivery.attempts[0].error, host).toMatch(/^refused: .*WEBHOOK_LOOPBACK_PORTS/);
      await listed.db('webhooks').where({ id }).update({ active: false });
    }
    expect(admin.hits).toEqual([]);
  });

  it('a listed loopback receiver gets its deliveries, and no excerpt of its answer is kept anywhere', async () => {
    const acct = await listed.newAccount();
    const hook = await configure(listed, acct, `http://127.0.0.1:${receiver.port}/hook`);
    expect(hook.status).toBe(201);
    const delivery = await endedDelivery(listed, acct, hook.body.webhook.id);
    expect(delivery.status).toBe('succeeded');
    expect(receiver.hits.length).toBeGreaterThanOrEqual(1);
    expect(delivery.attempts[0]).toMatchObject({ status_code: 200, response_excerpt: null });
    const stored = await listed.db('webhook_delivery_attempts').where({ delivery_id: delivery.id }).select('response_excerpt');
    expect(stored.map((r) => r.response_excerpt)).toEqual([null]);
    expect(JSON.stringify(delivery)).not.toContain('LOCAL-SECRET-42');
  });
});

describe('the stack’s own ports, inside a listed range', () => {
  // The tests' default: the machine's whole ephemeral range listed, as for every test stack.
  const ranged = useStack();

  it('refuses the worker’s Temporal Core metrics port (src/platform/worker/runtime.ts) at configure, in every spelling', async () => {
    const core = coreMetricsAddress();
    expect(core).toBeDefined();
    const port = Number(new URL(core!).port);
    const acct = await ranged.newAccount();
    for (const host of LOOPBACK_HOSTS) {
      const url = `http://${host}:${port}/metrics`;
      const res = await configure(ranged, acct, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error.details?.[0]?.message, url).toMatch(/own stack listens on/);
    }
  });
});
