/**
 * No tenant slows another (docs/webhooks.md, "No tenant slows another"), measured and printed: a
 * quiet account alone, then beside a noisy one (scripts/bench/neighbours.ts). One run, one stack, the
 * two phases back to back; test/neighbours/neighbours.test.ts holds the service to the same numbers.
 *
 *   npm run bench:neighbours [-- --duration 30 --rate 12 --endpoints 4 --quiet-rate 2]
 */
import { DEFAULT_TEST_DATABASE_URL } from '../tools/testSupport';
import {
  DEFAULT_NEIGHBOURS_LOAD,
  NEIGHBOURS_WEBHOOK_TIMEOUT,
  SLOW_ANSWER_MS,
  type QuietPhase,
  measureNeighbours,
} from './bench/neighbours';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
}

const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

async function main() {
  const d = DEFAULT_NEIGHBOURS_LOAD;
  const load = {
    duration: flag('duration', d.duration),
    rate: flag('rate', d.rate),
    endpoints: flag('endpoints', d.endpoints),
    quietRate: flag('quiet-rate', d.quietRate),
  };
  const { alone, loaded, noisyFailed, noisyReceived } = await measureNeighbours(
    process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL,
    load,
    log,
  );
  const { duration, rate, endpoints, quietRate } = load;
  const row = (name: string, p: QuietPhase) =>
    `| ${name} | ${p.lag.n} | ${p.lag.p50.toFixed(0)} / ${p.lag.p95.toFixed(0)} / ${p.lag.max.toFixed(0)} | ${p.timer.n} | ${p.timer.p50.toFixed(0)} / ${p.timer.p95.toFixed(0)} / ${p.timer.max.toFixed(0)} | ${p.failed} |`;
  console.log(
    [
      `bench:neighbours, ${duration} s per phase; quiet account ${quietRate}/s; noisy account ${rate}/s to ${endpoints} endpoints (${SLOW_ANSWER_MS / 1000} s answers, WEBHOOK_TIMEOUT ${NEIGHBOURS_WEBHOOK_TIMEOUT})`,
      '',
      '| quiet account | deliveries | payment.created lag p50 / p95 / max (ms) | timers | due → in the list p50 / p95 / max (ms) | failed requests |',
      '| --- | --- | --- | --- | --- | --- |',
      row('alone', alone),
      row('beside the noisy account', loaded),
      '',
      `p95 differences: webhook lag ${(loaded.lag.p95 - alone.lag.p95).toFixed(0)} ms, timer into the list ${(loaded.timer.p95 - alone.timer.p95).toFixed(0)} ms (the promise: within 1,000 ms each)`,
      `noisy account: ${rate * duration} creates, ${noisyFailed} failed; its receiver got ${noisyReceived} requests`,
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
