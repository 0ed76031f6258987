/**
 * No tenant slows another (docs/webhooks.md, "No tenant slows another"), measured: a quiet account's
 * webhook lag and timer-driven transitions, alone and then while a noisy account creates payments
 * at a steady rate towards endpoints whose receiver answers after 9 s. One run, one stack, the two
 * phases back to back; a measurement, never a test.
 *
 *   npm run bench:neighbours [-- --duration 30 --rate 12 --endpoints 4 --quiet-rate 2]
 *
 * The quiet account creates, deposits and approves payments with `auto_release_after_seconds` 2 at
 * `--quiet-rate` a second; for each it notes when its `payment.created` reached its receiver (from
 * the create's answer) and when the read model's list first showed it `released` (from the moment
 * the timer fell due: the approval's answer plus 2 s).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount } from '../src/db/accounts';
import { createDb } from '../src/db/knex';
import { DEFAULT_TEST_DATABASE_URL } from '../tools/testSupport';
import { JsonClient } from './bench/http';
import { WebhookReceiver } from './bench/receiver';
import { Recorder, type Percentiles, summarize } from './bench/stats';
import { startTarget } from './bench/target';

const AUTO_RELEASE_S = 2;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
}

const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver that answers every request after `delayMs` (the noisy account's endpoints). */
async function slowReceiver(delayMs: number) {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`,
    received: () => received,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Runs `op` `perSecond` times a second for `seconds`, without waiting for one to end before the next (open loop). */
async function atRate(perSecond: number, seconds: number, op: () => Promise<void>): Promise<number> {
  const pending: Promise<void>[] = [];
  let failed = 0;
  const start = performance.now();
  for (let i = 0; i < perSecond * seconds; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      op().catch(() => {
        failed++;
      }),
    );
  }
  await Promise.all(pending);
  return failed;
}

interface Phase {
  lag: Percentiles;
  timer: Percentiles;
  failed: number;
}

async function main() {
  const duration = flag('duration', 30);
  const rate = flag('rate', 12);
  const endpoints = flag('endpoints', 4);
  const quietRate = flag('quiet-rate', 2);
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const target = await startTarget('dev', databaseUrl, log, { WEBHOOK_TIMEOUT: '10s' });
  const slow = await slowReceiver(9_000);
  const quietReceiver = new WebhookReceiver();
  const db = createDb(databaseUrl);
  try {
    const api = target.apiUrls[0];
    const noisyKey = target.testKey;
    const quietKey = (await createAccount(db, `neighbour-${Date.now()}@example.com`, 'bench-password')).test_api_key;
    const noisy = new JsonClient(api, { 'x-api-key': noisyKey });
    const quiet = new JsonClient(api, { 'x-api-key': quietKey });
    const none = new Recorder();
    for (let i = 0; i < endpoints; i++) await noisy.call(none, 'webhook', 'POST', '/api/v1/webhooks/configure', { url: slow.url });
    await quietReceiver.start();
    const configured = await quiet.call<{ webhook: { secret: string } }>(none, 'webhook', 'POST', '/api/v1/webhooks/configure', {
      url: quietReceiver.url,
    });
    quietReceiver.secret = configured.webhook.secret;

    const payment = { amount: 10, currency: 'USD', payer_email: 'payer@example.com', recipient_email: 'seller@example.com' };

    /** The quiet account's load for `seconds`: each payment's webhook lag and its timer's lag into the list. */
    async function quietPhase(seconds: number): Promise<Phase> {
      const created = new Map<string, number>();
      const due = new Map<string, number>();
      const released = new Map<string, number>();
      let polling = true;
      const poller = (async () => {
        while (polling || released.size < due.size) {
          const page = await quiet.call<{ data: { id: string; status: string }[] }>(
            none,
            'list',
            'GET',
            '/api/v1/payments?limit=100&status=released',
          );
          const at = performance.now();
          for (const p of page.data) if (due.has(p.id) && !released.has(p.id)) released.set(p.id, at);
          if (!polling && performance.now() - Math.max(...due.values()) > 60_000) break;
          await sleep(50);
        }
      })();
      const failed = await atRate(quietRate, seconds, async () => {
        const p = await quiet.call<{ id: string }>(none, 'create', 'POST', '/api/v1/payments', {
          ...payment,
          auto_release_after_seconds: AUTO_RELEASE_S,
        });
        created.set(p.id, performance.now());
        await quiet.call(none, 'deposit', 'POST', `/api/v1/payments/${p.id}/deposit`);
        await quiet.call(none, 'approve', 'POST', `/api/v1/payments/${p.id}/approve`);
        due.set(p.id, performance.now() + AUTO_RELEASE_S * 1000);
      });
      polling = false;
      await quietReceiver.waitFor(
        [...created.keys()].map((id) => `${id} payment.created`),
        120_000,
      );
      await poller;
      const lag = [...created].flatMap(([id, at]) => {
        const arrived = quietReceiver.arrivals.get(`${id} payment.created`);
        return arrived === undefined ? [] : [arrived - at];
      });
      const timer = [...due].flatMap(([id, at]) => (released.has(id) ? [Math.max(0, released.get(id)! - at)] : []));
      return { lag: summarize(lag), timer: summarize(timer), failed };
    }

    log(`phase 1: the quiet account alone, ${duration} s`);
    const alone = await quietPhase(duration);
    log(`phase 2: the same while the noisy account creates ${rate} payments/s towards ${endpoints} endpoints answering after 9 s`);
    const noise = atRate(rate, duration, async () => {
      await noisy.call(none, 'create', 'POST', '/api/v1/payments', payment);
    });
    const loaded = await quietPhase(duration);
    const noisyFailed = await noise;
    const row = (name: string, p: Phase) =>
      `| ${name} | ${p.lag.n} | ${p.lag.p50.toFixed(0)} / ${p.lag.p95.toFixed(0)} / ${p.lag.max.toFixed(0)} | ${p.timer.n} | ${p.timer.p50.toFixed(0)} / ${p.timer.p95.toFixed(0)} / ${p.timer.max.toFixed(0)} | ${p.failed} |`;
    console.log(
      [
        `bench:neighbours, ${duration} s per phase; quiet account ${quietRate}/s; noisy account ${rate}/s to ${endpoints} endpoints (9 s answers, WEBHOOK_TIMEOUT 10s)`,
        '',
        '| quiet account | deliveries | payment.created lag p50 / p95 / max (ms) | timers | due → in the list p50 / p95 / max (ms) | failed requests |',
        '| --- | --- | --- | --- | --- | --- |',
        row('alone', alone),
        row('beside the noisy account', loaded),
        '',
        `p95 differences: webhook lag ${(loaded.lag.p95 - alone.lag.p95).toFixed(0)} ms, timer into the list ${(loaded.timer.p95 - alone.timer.p95).toFixed(0)} ms (the promise: within 1,000 ms each)`,
        `noisy account: ${rate * duration} creates, ${noisyFailed} failed; its receiver got ${slow.received()} requests`,
      ].join('\n'),
    );
  } finally {
    await db.destroy();
    await quietReceiver.close();
    await slow.close();
    await target.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
