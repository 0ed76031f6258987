/**
 * Record event histories of the payment and delivery workflows for the replay test (test/replay.test.ts):
 * `npm run record-history -- <prefix> [scenario ...]`. Against a throw-away dev server and the test
 * database, with a webhook configured, it drives payments that together cover every message and
 * timer: each per-action update, each milestone update (a staged payment), the `transition` signal,
 * test-clock moves (`advanceClock`), the auto-release timer, the deposit deadline, the money of
 * docs/money.md (a fee, a partial refund, a split), a delivery whose first attempt fails (every
 * payment.disputed delivery's) and a receiver that fails every attempt (a payment's run starts each
 * delivery's workflow as a child it abandons on close, and finishes whatever its receivers answer; a
 * delivery whose endpoint is full has its attempts turned away "busy" and retried by Temporal until
 * one is sent). Two delivery workflows are recorded too (`delivery-…`): a retried one and one a full
 * endpoint turned away. Each history goes to test/fixtures/histories/<prefix>-<scenario>.json; with
 * scenarios named, only theirs (to add one to a set without recording the others again).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { findTemporalCli } from '../src/platform/lib/temporalDevServer';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { createDb } from '../src/platform/database/knex';
import { releaseLease, takeLease } from '../src/webhooks/endpointLeases.repository';
import { transitionSignal } from '../src/platform/workflows.workflow';
import { apiPoster, withLocalStack } from './lib/localStack';

export const HISTORY_DIR = path.resolve(__dirname, '../test/fixtures/histories');
/** The payments it records, each its own history file. */
const SCENARIOS = [
  'approve-release',
  'dispute-refund',
  'signal-auto-release',
  'deposit-deadline',
  'fee-refund-split',
  'clock-auto-release',
  'staged-milestones',
  'failing-receiver',
  'dispute-agreement',
  'dispute-default',
  'full-endpoint',
  'delivery-retried',
  'delivery-full-endpoint',
] as const;

/** WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT of the recording: the `full-endpoint` scenario holds this many leases. */
const ENDPOINT_LIMIT = 4;

async function main() {
  const [prefix, ...only] = process.argv.slice(2);
  if (!prefix || !/^[a-z0-9-]+$/.test(prefix)) throw new Error('usage: npm run record-history -- <prefix, e.g. v3> [scenario ...]');
  const unknown = only.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`no scenario ${unknown.join(', ')}: the scenarios are ${SCENARIOS.join(', ')}`);
  // Fails the first attempt of each payment.disputed delivery, and every attempt for the payments in
  // `failing`: whatever the receivers answer, the payment's history is the same.
  const failedOnce = new Set<string>();
  const failing = new Set<string>();
  const receiver = http
    .createServer((req, res) => {
      const id = String(req.headers['x-service-delivery']);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const paymentId = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payment_id?: string }).payment_id);
        if (failing.has(paymentId) || (req.headers['x-service-event'] === 'payment.disputed' && !failedOnce.has(id))) {
          failedOnce.add(id);
          res.statusCode = 503;
        }
        res.end('{"received":true}');
      });
    })
    .listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  try {
    // Retries a second apart, so that the retried delivery ends within the recording.
    const env = { WEBHOOK_RETRY_INITIAL_INTERVAL: '1s', WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(ENDPOINT_LIMIT) };
    await withLocalStack(env, async ({ apiUrl, temporalAddress, client, testKey, databaseUrl }) => {
      const call = apiPoster(apiUrl, testKey);
      const configured = await call('/webhooks/configure', {
        url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
      });
      const base = { currency: 'EUR', payer_email: 'payer@example.com', recipient_email: 'recipient@example.com' };

      const released = await call('/payments', { ...base, amount: 25 });
      await call(`/payments/${released.id}/deposit`);
      await call(`/payments/${released.id}/approve`);
      await call(`/payments/${released.id}/release`);

      const disputed = await call('/payments', { ...base, amount: 42.5, auto_release_after_seconds: 3600 });
      await call(`/payments/${disputed.id}/deposit`, { reason: 'funds received' });
      await call(`/payments/${disputed.id}/dispute`, { reason: 'item not as described' });
      await call(`/payments/${disputed.id}/resolve`, { resolution: 'refund', reason: 'seller agreed' });

      const autoReleased = await call('/payments', { ...base, amount: 10, auto_release_after_seconds: 1 });
      await client.workflow
        .getHandle(autoReleased.id)
        .signal(transitionSignal, { action: 'deposit', actor: 'recorder', reason: 'by signal' });
      await waitForStatus(apiUrl, testKey, autoReleased.id, 'in_custody');
      await call(`/payments/${autoReleased.id}/approve`);

      const expired = await call('/payments', { ...base, amount: 7, deposit_deadline_seconds: 1 });

      // The money of docs/money.md: a fee, a partial refund, then a dispute resolved by a split.
      const split = await call('/payments', { ...base, amount: 100, platform_fee: 5 });
      await call(`/payments/${split.id}/deposit`);
      await call(`/payments/${split.id}/refund`, { amount: 20, reason: 'one item returned' });
      await call(`/payments/${split.id}/dispute`);
      await call(`/payments/${split.id}/resolve`, { resolution: 'split', refund_amount: 30 });

      // A test clock: one move that leaves the auto-release pending, one that makes it due.
      const clocked = await call('/payments', { ...base, amount: 12, auto_release_after_seconds: 3600 });
      await call(`/payments/${clocked.id}/deposit`);
      await call(`/payments/${clocked.id}/approve`);
      await call(`/test_helpers/payments/${clocked.id}/advance`, { seconds: 60 });
      await call(`/test_helpers/payments/${clocked.id}/advance`, { seconds: 3600 });

      // A staged payment (three milestones): each milestone update, one milestone's auto-release on a
      // test clock, a milestone's partial refund, and its dispute resolved by a split.
      const staged = await call('/payments', {
        ...base,
        amount: 100,
        platform_fee: 3,
        milestones: [
          { reference: 'design', amount: 20 },
          { reference: 'build', amount: 50, auto_release_after_seconds: 3600 },
          { reference: 'launch', amount: 30 },
        ],
      });
      const [design, build, launch] = (staged.milestones as { id: string }[]).map((m) => `/payments/${staged.id}/milestones/${m.id}`);
      await call(`/payments/${staged.id}/deposit`);
      await call(`${design}/approve`);
      await call(`${design}/release`);
      await call(`${build}/approve`);
      await call(`/test_helpers/payments/${staged.id}/advance`, { seconds: 3600 });
      await call(`${launch}/refund`, { amount: 5, reason: 'one page dropped' });
      await call(`${launch}/dispute`);
      await call(`${launch}/resolve`, { resolution: 'split', refund_amount: 10 });

      // A receiver that fails every attempt: the payment finishes all the same.
      const failingReceiver = await call('/payments', { ...base, amount: 3 });
      failing.add(failingReceiver.id);
      await call(`/payments/${failingReceiver.id}/cancel`, { reason: 'order withdrawn' });

      // Disputes as a process (patch `disputes`): evidence, offers (one superseded, one declined) and
      // an agreement; and on a staged payment a withdrawal, then a payer's dispute decided by default
      // when a test clock passes its respond_by, while another milestone is released.
      const agreed = await call('/payments', { ...base, amount: 80, platform_fee: 4 });
      await call(`/payments/${agreed.id}/deposit`);
      await call(`/payments/${agreed.id}/dispute`, { opened_by: 'payer', reason: 'arrived broken' });
      await call(`/payments/${agreed.id}/dispute/evidence`, { party: 'payer', text: 'photo of the damage' });
      await call(`/payments/${agreed.id}/dispute/evidence`, { party: 'recipient', text: 'packed with care' });
      await call(`/payments/${agreed.id}/dispute/offers`, { proposed_by: 'recipient', refund_amount: 10 });
      const offered = await call(`/payments/${agreed.id}/dispute/offers`, { proposed_by: 'recipient', refund_amount: 20, note: 'half' });
      const counter = await call(`/payments/${agreed.id}/dispute/offers`, { proposed_by: 'payer', refund_amount: 60 });
      const offerIds = (counter.dispute.offers as { id: string }[]).map((o) => o.id);
      await call(`/payments/${agreed.id}/dispute/offers/${offerIds[2]}/decline`, { party: 'recipient' });
      await call(`/payments/${agreed.id}/dispute/offers/${(offered.dispute.offers as { id: string }[])[1].id}/accept`, { party: 'payer' });

      const defaulted = await call('/payments', {
        ...base,
        amount: 50,
        milestones: [
          { reference: 'first', amount: 30 },
          { reference: 'second', amount: 20 },
        ],
      });
      const [first, second] = (defaulted.milestones as { id: string }[]).map((m) => `/payments/${defaulted.id}/milestones/${m.id}`);
      await call(`/payments/${defaulted.id}/deposit`);
      await call(`${first}/dispute`, { opened_by: 'recipient' });
      await call(`${first}/dispute/withdraw`, { party: 'recipient' });
      await call(`${first}/dispute`, { opened_by: 'payer', respond_within_seconds: 3600 });
      await call(`${second}/approve`);
      await call(`${second}/release`);
      await call(`/test_helpers/payments/${defaulted.id}/advance`, { seconds: 3600 });

      const scenarios = {} as Record<(typeof SCENARIOS)[number], string>;
      // Its endpoint full when its delivery is attempted: the attempt is turned away ("busy") and
      // Temporal retries it; once a lease is free, the next attempt delivers it.
      const db = createDb(databaseUrl);
      let deliveries: Record<'retried' | 'busy', string>;
      try {
        const fullEndpoint = await withEndpointFull(db, configured.webhook.id as string, async () => {
          const payment = await call('/payments', { ...base, amount: 9 });
          await untilTurnedAway(db, payment.id as string);
          return payment;
        });
        await call(`/payments/${fullEndpoint.result.id}/cancel`);
        // Each delivery is the workflow named by its id: the disputed payment's first attempt failed, the full endpoint's was turned away.
        const deliveryOf = async (paymentId: string, event: string) =>
          (await db('webhook_deliveries').where({ payment_id: paymentId, event }).first<{ id: string }>('id')).id;
        deliveries = {
          retried: await deliveryOf(disputed.id as string, 'payment.disputed'),
          busy: await deliveryOf(fullEndpoint.result.id as string, 'payment.created'),
        };
        scenarios['full-endpoint'] = fullEndpoint.result.id;
      } finally {
        await db.destroy();
      }

      Object.assign(scenarios, {
        'approve-release': released.id,
        'dispute-refund': disputed.id,
        'signal-auto-release': autoReleased.id,
        'deposit-deadline': expired.id,
        'fee-refund-split': split.id,
        'clock-auto-release': clocked.id,
        'staged-milestones': staged.id,
        'failing-receiver': failingReceiver.id,
        'dispute-agreement': agreed.id,
        'dispute-default': defaulted.id,
        'delivery-retried': deliveries.retried,
        'delivery-full-endpoint': deliveries.busy,
      });
      const cli = (await findTemporalCli())!;
      for (const [name, id] of Object.entries(scenarios)) {
        if (only.length > 0 && !only.includes(name)) continue;
        await client.workflow.getHandle(id).result();
        // The CLI's JSON is the canonical history format that historyFromJSON reads back.
        const json = execFileSync(cli, ['workflow', 'show', '--workflow-id', id, '--address', temporalAddress, '--output', 'json'], {
          encoding: 'utf8',
        });
        const file = path.join(HISTORY_DIR, `${prefix}-${name}.json`);
        fs.mkdirSync(HISTORY_DIR, { recursive: true });
        fs.writeFileSync(file, json);
        console.log(`history of ${id} (${JSON.parse(json).events.length} events) written to ${file}`);
      }
    });
  } finally {
    receiver.close();
  }
}

/** Runs `fn` while ENDPOINT_LIMIT leases of stand-in deliveries hold the configuration's endpoint full. */
async function withEndpointFull<T>(db: Knex, webhookId: string, fn: () => Promise<T>) {
  const holders = Array.from({ length: ENDPOINT_LIMIT }, () => `dlv_${ulid()}`);
  await db('webhook_deliveries').insert(holders.map((id) => ({ id, webhook_id: webhookId, event: 'payment.created', body: '{}' })));
  for (const deliveryId of holders) {
    if (!(await takeLease(db, { deliveryId, webhookId, limit: ENDPOINT_LIMIT, leaseMs: 60_000 })))
      throw new Error('the endpoint was not free');
  }
  const result = await fn();
  for (const deliveryId of holders) await releaseLease(db, deliveryId, webhookId);
  await db('webhook_deliveries').whereIn('id', holders).delete();
  return { result };
}

/** Until the payment's delivery has had an attempt turned away by its full endpoint. */
async function untilTurnedAway(db: Knex, paymentId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const busy = await db('webhook_delivery_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .where('d.payment_id', paymentId)
      .andWhere('a.error', 'like', 'endpoint busy:%')
      .first();
    if (busy) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${paymentId}'s delivery was never turned away by its full endpoint`);
}

async function waitForStatus(apiUrl: string, key: string, id: string, status: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${apiUrl}/api/v1/payments/${id}`, { headers: { 'X-API-Key': key } });
    if (((await res.json()) as { status?: string }).status === status) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${id} never reached ${status}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
