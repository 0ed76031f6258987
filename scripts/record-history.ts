/**
 * Record the event history of a payment workflow for the replay test (test/replay.test.ts):
 * `npm run record-history`. Drives one payment through create → deposit → dispute → resolve with a
 * webhook configured, against a throw-away dev server and the test database, and writes the
 * history to test/fixtures/payment-history.json. Re-record only for an intended, versioned change.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { findTemporalCli } from '../src/lib/temporalDevServer';
import { apiPoster, withLocalStack } from './lib/localStack';

export const HISTORY_FIXTURE = path.resolve(__dirname, '../test/fixtures/payment-history.json');

async function main() {
  const receiver = http.createServer((_req, res) => res.end('{"received":true}')).listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  try {
    await withLocalStack({}, async ({ apiUrl, temporalAddress, client, testKey }) => {
      const call = apiPoster(apiUrl, testKey);
      await call('/webhooks/configure', { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` });
      const payment = await call('/payments', { amount: 42.5, currency: 'EUR', payer_email: 'payer@example.com', recipient_email: 'recipient@example.com', auto_release_after_seconds: 3600 });
      await call(`/payments/${payment.id}/deposit`, { reason: 'funds received' });
      await call(`/payments/${payment.id}/dispute`, { reason: 'item not as described' });
      await call(`/payments/${payment.id}/resolve`, { resolution: 'refund', reason: 'seller agreed' });
      await client.workflow.getHandle(payment.id).result();
      // The CLI's JSON is the canonical history format that historyFromJSON reads back.
      const json = execFileSync(findTemporalCli()!, ['workflow', 'show', '--workflow-id', payment.id, '--address', temporalAddress, '--output', 'json'], { encoding: 'utf8' });
      fs.mkdirSync(path.dirname(HISTORY_FIXTURE), { recursive: true });
      fs.writeFileSync(HISTORY_FIXTURE, json);
      console.log(`history of ${payment.id} (${JSON.parse(json).events.length} events) written to ${HISTORY_FIXTURE}`);
    });
  } finally {
    receiver.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
