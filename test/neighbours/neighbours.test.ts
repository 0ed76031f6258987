/**
 * No tenant slows another (docs/webhooks.md, "No tenant slows another"), sized for a 2-core machine:
 * one account with 4 endpoints whose receiver answers after 9 s creates 12 test payments a second for
 * 30 s; another account's `payment.created` deliveries arrive within 1 s (p95) of what they take
 * without that load in the same run, and its auto-release (a durable timer, no request in its path)
 * shows in its list within 1 s of falling due.
 *
 * A latency bound under an adversary is a correctness property here, not a speed target: the load is
 * bounded, the margin is the contract's, and the stack (dev server, worker, API as processes of their
 * own) is this file's alone. `npm run test:neighbours`.
 */
import { inject, it, expect } from 'vitest';
import { DEFAULT_NEIGHBOURS_LOAD, measureNeighbours } from '../../scripts/bench/neighbours';

const log = (msg: string) => process.stderr.write(`neighbours: ${msg}\n`);

it("a quiet account's webhooks and auto-releases keep their pace while a noisy account floods slow endpoints", async () => {
  const result = await measureNeighbours(inject('databaseUrl'), DEFAULT_NEIGHBOURS_LOAD, log);
  const { alone, loaded } = result;
  log(JSON.stringify({ alone, loaded, noisyFailed: result.noisyFailed, noisyReceived: result.noisyReceived }));

  // The load ran as sized: every request answered, the noisy endpoints reached, every quiet payment measured.
  expect(result.noisyFailed).toBe(0);
  expect(result.noisyReceived).toBeGreaterThan(0);
  for (const phase of [alone, loaded]) {
    expect(phase.failed).toBe(0);
    expect(phase.lag.n).toBe(phase.payments);
    expect(phase.timer.n).toBe(phase.payments);
  }

  expect(loaded.lag.p95 - alone.lag.p95, 'payment.created lag p95, beside the noisy account minus alone (ms)').toBeLessThanOrEqual(1_000);
  expect(loaded.timer.p95, 'auto-release due → in the list, p95 beside the noisy account (ms)').toBeLessThanOrEqual(1_000);
});
