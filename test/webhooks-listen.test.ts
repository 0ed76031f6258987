/**
 * `npm run webhooks:listen`: the command configures a test-mode webhook, verifies and prints each
 * delivery, forwards it with its signature headers (answering the service with the forward
 * target's status), and removes the configuration on Ctrl-C or SIGTERM. Run as a child process,
 * as a developer runs it, against a real stack.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../src';
import { startReceiver } from './helpers/receiver';
import { eventually, useStack, validPayment } from './helpers/stack';

const SCRIPT = path.resolve(__dirname, '../scripts/webhooks-listen.ts');

interface Listener {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `node --import tsx scripts/webhooks-listen.ts …`, with SERVICE_API_KEY, KEY and API unset unless
 * `env` sets them; its receiver on an ephemeral port (WEBHOOKS_LISTEN_PORT=0), never the quickstart's 4000.
 */
function listen(args: string[], env: Record<string, string> = {}): Listener {
  const { SERVICE_API_KEY: _ignored, KEY: _key, API: _api, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { env: { ...inherited, WEBHOOKS_LISTEN_PORT: '0', ...env } });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  // 'close', not 'exit': the output is complete only once the child's pipes have closed.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits for the start-up lines: the receiver's URL, the webhook id and its secret. */
async function ready(l: Listener) {
  return eventually(
    async () => {
      const m = /go to (http:\/\/127\.0\.0\.1:\d+\/) \(webhook (wh_\w+)\)\.\nSigning secret: (whsec_\S+)/.exec(l.output());
      return m ? { url: m[1], webhookId: m[2], secret: m[3] } : undefined;
    },
    30_000,
    'the listener to be ready',
  );
}

const stack = useStack();

/** Create a payment and wait for the listen command's line about its payment.created delivery. */
async function createAndSeeDelivery(key: string, l: { output(): string }) {
  const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
  expect(p.status).toBe(201);
  const line = await eventually(
    async () =>
      l
        .output()
        .split('\n')
        .find((s) => s.includes('payment.created') && s.includes(p.body.id as string)),
    30_000,
    'the delivery line',
  );
  return { p, line };
}

describe('npm run webhooks:listen', () => {
  it('prints the secret, verifies and forwards a delivery, answers with the target’s status, and removes its configuration on Ctrl-C', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const target = await startReceiver(() => 202);
    const l = listen(['--api', `${stack.url}/api/v1`, '--api-key', key, '--forward-to', target.url]);
    try {
      const { webhookId, secret } = await ready(l);
      const listed = (await stack.http.get('/api/v1/webhooks', { key })).body.data;
      expect(listed.map((w: { id: string }) => w.id)).toEqual([webhookId]);

      const { p, line } = await createAndSeeDelivery(key, l);
      expect(line).toMatch(/verified \(standard-webhooks\)\s+→ 202$/);

      // The target got the exact bytes and the signature headers the service sent.
      const forwarded = await eventually(async () => target.received.find((r) => r.body?.payment_id === p.body.id), 10_000, 'the forward');
      expect(forwarded.body.event).toBe('payment.created');
      expect(forwarded.headers['x-service-event']).toBe('payment.created');
      expect(verifyWebhook(forwarded.raw, forwarded.headers, secret)).toEqual({ ok: true, scheme: 'standard-webhooks' });
      const { 'webhook-signature': _standard, ...legacyOnly } = forwarded.headers;
      expect(verifyWebhook(forwarded.raw, legacyOnly, secret, { allowBodyOnlySignature: true })).toEqual({
        ok: true,
        scheme: 'x-service-signature',
      });

      // The service's delivery log records the target's answer, passed back by the listener.
      const attempt = await eventually(async () => {
        const log = await stack.http.get(`/api/v1/webhooks/${webhookId}/deliveries`, { key });
        return log.body.data?.find((d: { payment_id: string }) => d.payment_id === p.body.id)?.attempts?.[0];
      }, 20_000);
      expect(attempt.status_code).toBe(202);

      l.child.kill('SIGINT');
      expect(await l.exited).toBe(0);
      expect(l.output()).toContain(`Removed webhook ${webhookId}.`);
      expect((await stack.http.get('/api/v1/webhooks', { key })).body.data).toEqual([]);
    } finally {
      if (l.child.exitCode === null) l.child.kill('SIGKILL');
      await target.close();
    }
  });

  it('by default: the API on PORT, the key from DATA_DIR/demo.json, 200 without a forward target, a forgery refused; SIGTERM removes it', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'listen-'));
    fs.writeFileSync(path.join(dataDir, 'demo.json'), JSON.stringify({ email: acct.email, password: acct.password, test_api_key: key }));
    const l = listen([], { PORT: new URL(stack.url).port, DATA_DIR: dataDir });
    try {
      const { url, webhookId } = await ready(l);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:/);
      expect(l.output()).not.toContain('Forwarding');

      // A delivery signed with another secret: refused, and the service would be told 401.
      const forged = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Service-Event': 'payment.released',
          'webhook-id': 'dlv_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        },
        body: JSON.stringify({ event: 'payment.released', payment_id: 'pay_forged' }),
      });
      expect(forged.status).toBe(401);
      // The child's stdout reaches this process through a pipe, so its line may arrive after the response.
      const refusal = await eventually(
        async () => /payment\.released\s+pay_forged\s+REFUSED: (.+)/.exec(l.output())?.[1],
        10_000,
        'the refusal line',
      );
      expect(refusal).toBe('no webhook-signature matches');

      const { p, line } = await createAndSeeDelivery(key, l);
      expect(line).toMatch(/verified \(standard-webhooks\)$/);
      const attempt = await eventually(async () => {
        const log = await stack.http.get(`/api/v1/webhooks/${webhookId}/deliveries`, { key });
        return log.body.data?.find((d: { payment_id: string }) => d.payment_id === p.body.id)?.attempts?.[0];
      }, 20_000);
      expect(attempt.status_code).toBe(200);

      l.child.kill('SIGTERM');
      expect(await l.exited).toBe(0);
      expect((await stack.http.get('/api/v1/webhooks', { key })).body.data).toEqual([]);
    } finally {
      if (l.child.exitCode === null) l.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start without a test key, saying where one comes from', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'listen-'));
    try {
      const none = listen(['--api', `${stack.url}/api/v1`], { DATA_DIR: empty });
      expect(await none.exited).toBe(1);
      expect(none.output()).toContain('no API key: pass --api-key svc_test_…, set SERVICE_API_KEY or KEY, or run `npm start` first');
      // A demo.json of a database with no demo account names no key at its top: the same refusal.
      fs.writeFileSync(path.join(empty, 'demo.json'), JSON.stringify({ database: 'postgres://elsewhere/db', databases: {} }));
      const keyless = listen(['--api', `${stack.url}/api/v1`], { DATA_DIR: empty });
      expect(await keyless.exited).toBe(1);
      expect(keyless.output()).toContain('no API key: pass --api-key svc_test_…, set SERVICE_API_KEY or KEY, or run `npm start` first');

      const acct = await stack.newAccount();
      const live = listen(['--api', `${stack.url}/api/v1`], { SERVICE_API_KEY: acct.live_api_key });
      expect(await live.exited).toBe(1);
      expect(live.output()).toContain('webhooks:listen is for test mode: use a svc_test_… key');
      expect((await stack.http.get('/api/v1/webhooks', { key: acct.live_api_key })).body.data).toEqual([]);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
