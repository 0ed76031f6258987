/**
 * No webhook reaches the stack's own services (docs/security.md, "The stack's own ports"): even with
 * WEBHOOK_ALLOW_LOOPBACK on, a port the API, metrics, Temporal (every port of the dev server) or the
 * database listens on is a 400 at configure and a refused attempt at delivery, and the custody trail
 * keeps an error code of an attempt, never a host name.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { addStackPorts } from '../src/platform/config';
import { freePort, listeningPorts } from '../src/platform/lib/net';
import { startDevServer } from '../src/platform/lib/temporalDevServer';
import { startReceiver } from './helpers/receiver';
import { eventually, useStack, validPayment, type Stack, type TestAccount } from './helpers/stack';

const stack = useStack({ env: { WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT: '1s' } });

const configure = (acct: TestAccount, url: string) =>
  stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url } });
const portOf = (url: string) => Number(new URL(url).port);
const temporalPorts = () => inject('temporalPorts').split(',').map(Number);

describe('configure', () => {
  it('refuses every port of the stack on loopback with a 400 naming url: API, metrics, Temporal, database', async () => {
    const acct = await stack.newAccount();
    const ports = {
      api: portOf(stack.url),
      metrics: portOf(stack.api.metricsUrl),
      database: Number(new URL(inject('databaseUrl')).port || 5432),
      ...Object.fromEntries(temporalPorts().map((p, i) => [`temporal ${i}`, p])),
    };
    expect(Object.keys(ports).length).toBeGreaterThanOrEqual(4 + 4);
    for (const [what, port] of Object.entries(ports)) {
      for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.0.0.2']) {
        const url = `http://${host}:${port}/api/v1/namespaces/default/workflows/x/terminate`;
        const res = await configure(acct, url);
        expect(res.status, `${what}: ${url}`).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.details?.[0]).toMatchObject({ field: 'url', message: expect.stringMatching(/own stack listens on/) });
      }
    }
    // Loopback itself stays allowed: any other port.
    expect((await configure(acct, `http://127.0.0.1:${await freePort()}/hook`)).status).toBe(201);
    expect((await stack.http.get('/api/v1/webhooks', { key: acct.test_api_key })).body.data).toHaveLength(1);
  });

  it('the dev server’s ports the stack knows include its HTTP API and /metrics, which the CLI would pick at random', async () => {
    const answers = await Promise.all(
      temporalPorts().map(async (port) => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        return {
          api: res?.ok === true && ((await res.json()) as { namespaces?: unknown[] }).namespaces !== undefined,
          metrics: metrics?.ok === true,
        };
      }),
    );
    expect(answers.some((a) => a.api)).toBe(true);
    expect(answers.some((a) => a.metrics)).toBe(true);
  });
});

describe('a dev server the stack starts', () => {
  it('reports every port its process listens on, internal services’ included', async () => {
    const server = await startDevServer({ port: await freePort(), uiPort: await freePort() });
    try {
      expect(server.pid).toBeDefined();
      // gRPC, HTTP API, /metrics, UI, and the internal services' gRPC ports.
      expect(server.ports.length).toBeGreaterThanOrEqual(6);
      await new Promise((r) => setTimeout(r, 1000));
      expect([...server.ports].sort()).toEqual(listeningPorts(server.pid!).sort());
    } finally {
      await server.stop();
    }
  });
});

/** A configuration written past the configure-time check (as if the stack's ports changed since). */
async function planted(acct: TestAccount, url: string) {
  const id = `wh_planted${randomBytes(6).toString('hex')}`;
  await stack.db('webhooks').insert({
    id,
    account_id: acct.account_id,
    livemode: false,
    url,
    secret: `whsec_${randomBytes(24).toString('base64')}`,
    events: ['payment.created'],
    active: true,
  });
  return id;
}

/** The ended delivery of `id` and the custody-trail leaves of its attempts. */
async function endedDelivery(s: Stack, acct: TestAccount, id: string) {
  expect((await s.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).status).toBe(201);
  const [delivery] = await eventually(
    async () => {
      const d = (await s.http.get(`/api/v1/webhooks/${id}/deliveries`, { key: acct.test_api_key })).body.data;
      return d[0]?.status === 'failed' ? d : undefined;
    },
    20_000,
    'failed delivery',
  );
  const leaves = await eventually(
    async () => {
      const rows = await s.db('audit_leaves').where('entry_key', 'like', `webhook_attempt:${delivery.id}:%`).select('leaf');
      return rows.length === delivery.attempts.length
        ? rows.map((r) => JSON.parse(r.leaf as string) as Record<string, unknown>)
        : undefined;
    },
    10_000,
    'attempt leaves',
  );
  return { delivery, leaves, text: leaves.map((l) => JSON.stringify(l)).join('\n') };
}

describe('delivery', () => {
  it('refuses a port the stack learned (as a dev server’s) at delivery: one refused attempt, nothing sent', async () => {
    const receiver = await startReceiver();
    try {
      addStackPorts(stack.config, [portOf(receiver.url)]);
      const acct = await stack.newAccount();
      // By address, and by a name the connect-time check resolves.
      for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost')]) {
        const id = await planted(acct, url);
        const { delivery, leaves } = await endedDelivery(stack, acct, id);
        expect(delivery.attempts, url).toHaveLength(1);
        expect(delivery.attempts[0].error, url).toMatch(/^refused: .*own stack listens on/);
        expect(leaves[0]).toMatchObject({ error: 'url_refused', status_code: null, outcome: 'failed' });
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('a refused or failed attempt’s trail leaf holds an error code, never the host; the delivery log keeps the text', async () => {
    const acct = await stack.newAccount();
    const host = `receiver-${randomBytes(4).toString('hex')}.invalid`;
    const unresolved = await endedDelivery(stack, acct, await planted(acct, `https://${host}/hook`));
    expect(unresolved.delivery.attempts[0].error).toContain(host);
    expect(unresolved.leaves[0].error).toBe('url_refused');
    expect(unresolved.text).not.toContain(host);

    const closed = await freePort();
    const refused = await endedDelivery(stack, acct, await planted(acct, `http://localhost:${closed}/hook`));
    expect(refused.leaves[0].error).toBe('ECONNREFUSED');
    expect(refused.text).not.toMatch(/localhost|127\.0\.0\.1|::1/);
  });
});
