/**
 * Benchmark: how long after a transition's HTTP answer its webhook reaches a local receiver, and
 * how long a transition takes. `npm run bench:webhooks [-- payments]`. Prints percentiles; asserts
 * nothing (speed lives here, not in tests).
 */
import http from 'node:http';
import { apiPoster, withLocalStack } from './lib/localStack';

const N = Number(process.argv[2] ?? 20);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const line = (name: string, xs: number[]) => console.log(`${name.padEnd(28)} n=${xs.length}  p50=${pct(xs, 50).toFixed(1)} ms  p95=${pct(xs, 95).toFixed(1)} ms  max=${Math.max(...xs).toFixed(1)} ms`);

async function main() {
  const arrivals = new Map<string, number>();
  const receiver = http
    .createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const e = JSON.parse(body);
        arrivals.set(`${e.payment_id} ${e.event}`, performance.now());
        res.end('{"received":true}');
      });
    })
    .listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  try {
    await withLocalStack({}, async ({ apiUrl, testKey }) => {
      const call = apiPoster(apiUrl, testKey);
      await call('/webhooks/configure', { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` });
      const answered = new Map<string, number>();
      const transitionMs: number[] = [];
      for (let i = 0; i < N; i++) {
        let t = performance.now();
        const p = await call('/payments', { amount: 10 + i, currency: 'USD', payer_email: 'payer@example.com', recipient_email: 'recipient@example.com' });
        answered.set(`${p.id} payment.created`, performance.now());
        for (const [action, event] of [['deposit', 'payment.deposited'], ['approve', 'payment.approved'], ['release', 'payment.released']]) {
          t = performance.now();
          await call(`/payments/${p.id}/${action}`);
          const now = performance.now();
          transitionMs.push(now - t);
          answered.set(`${p.id} ${event}`, now);
        }
      }
      const deadline = Date.now() + 30_000;
      while (arrivals.size < answered.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const lag = [...answered].filter(([k]) => arrivals.has(k)).map(([k, at]) => Math.max(0, arrivals.get(k)! - at));
      line('transition (HTTP round trip)', transitionMs);
      line('answer → webhook received', lag);
      console.log(`delivered ${arrivals.size}/${answered.size}`);
    });
  } finally {
    receiver.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
