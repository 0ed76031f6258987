/**
 * No tenant slows another (docs/webhooks.md, "No tenant slows another"), measured on one stack of
 * its own: a quiet account's webhook lag and timer-driven transitions, alone and then while a noisy
 * account creates test payments at a steady rate towards endpoints whose receiver answers after 9 s.
 * `npm run bench:neighbours` prints it; test/neighbours/neighbours.test.ts holds the service to it.
 *
 * The quiet account creates, deposits and approves payments with `auto_release_after_seconds` 2 at
 * `quietRate` a second; for each it notes when its `payment.created` reached its receiver (from the
 * create's answer) and when the read model's list first showed it `released` (from the moment the
 * timer fell due: the approval's answer plus 2 s).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount } from '../../src/tenants/tenants.repository';
import { createDb } from '../../src/platform/database/knex';
import { JsonClient } from './http';
import { WebhookReceiver } from './receiver';
import { Recorder, type Percentiles, summarize } from './stats';
import { startTarget } from './target';

const AUTO_RELEASE_S = 2;
/** The noisy account's receiver answers after this long, within the stack's WEBHOOK_TIMEOUT. */
export const SLOW_ANSWER_MS = 9_000;
export const NEIGHBOURS_WEBHOOK_TIMEOUT = '10s';

export interface NeighboursLoad {
  /** Seconds of each phase. */
  duration: number;
  /** The noisy account's creates a second. */
  rate: number;
  /** The noisy account's webhook configurations, all to the slow receiver. */
  endpoints: number;
  /** The quiet account's payments a second. */
  quietRate: number;
}

/** The sizes, for this 2-core machine: 12 creates a second for 30 s to 4 endpoints beside 2 payments a second. */
export const DEFAULT_NEIGHBOURS_LOAD: NeighboursLoad = { duration: 30, rate: 12, endpoints: 4, quietRate: 2 };

/** The quiet account in one phase: what it sent and how late its deliveries and timers showed. */
export interface QuietPhase {
  payments: number;
  /** payment.created: the create's answer → its arrival at the quiet receiver (ms). */
  lag: Percentiles;
  /** auto-release: due → first seen `released` in the list (ms). */
  timer: Percentiles;
  failed: number;
}

export interface NeighboursResult {
  alone: QuietPhase;
  loaded: QuietPhase;
  noisyFailed: number;
  /** Requests the noisy account's slow receiver got: proof the noise reached its endpoints. */
  noisyReceived: number;
}

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

/** Starts a stack of its own (API, worker, dev server) on `databaseUrl`, measures both phases back to back, and stops it. */
export async function measureNeighbours(databaseUrl: string, load: NeighboursLoad, log: (msg: string) => void): Promise<NeighboursResult> {
  const { duration, rate, endpoints, quietRate } = load;
  const target = await startTarget('dev', databaseUrl, log, { WEBHOOK_TIMEOUT: NEIGHBOURS_WEBHOOK_TIMEOUT });
  const slow = await slowReceiver(SLOW_ANSWER_MS);
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
    async function quietPhase(seconds: number): Promise<QuietPhase> {
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
      return { payments: quietRate * seconds, lag: summarize(lag), timer: summarize(timer), failed };
    }

    log(`phase 1: the quiet account alone, ${duration} s`);
    const alone = await quietPhase(duration);
    log(
      `phase 2: the same while the noisy account creates ${rate} payments/s towards ${endpoints} endpoints answering after ${SLOW_ANSWER_MS / 1000} s`,
    );
    const noise = atRate(rate, duration, async () => {
      await noisy.call(none, 'create', 'POST', '/api/v1/payments', payment);
    });
    const loaded = await quietPhase(duration);
    const noisyFailed = await noise;
    return { alone, loaded, noisyFailed, noisyReceived: slow.received() };
  } finally {
    await db.destroy();
    await quietReceiver.close();
    await slow.close();
    await target.stop();
  }
}
