/**
 * `npm run repair -- --payment pay_… | --all [--account acct_…]`: gives payments whose run was terminated, cancelled,
 * timed out or reset a new run from the durable state (docs/operations.md). Idempotent.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/lib/logger';
import { buildStack } from '../src/platform/stack';
import type { RepairResult } from '../src/payments/repair.service';
import { runCommand } from './lib/cli';

const USAGE = 'usage: npm run repair -- --payment <payment id> | --all [--account <account id>]';

/** One line per payment: id, what was found, why, and the new run. */
const line = (r: RepairResult) =>
  `${r.paymentId} ${r.found}: ${r.why}${r.runId ? ` → new run ${r.runId}` : ''}${r.deliveriesResumed ? `, ${r.deliveriesResumed} deliveries continued` : ''}`;

async function main(): Promise<number> {
  let values: { payment?: string; all?: boolean; account?: string };
  try {
    ({ values } = parseArgs({ options: { payment: { type: 'string' }, all: { type: 'boolean' }, account: { type: 'string' } } }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const badPayment = values.payment !== undefined && !/^pay_\w+$/.test(values.payment);
  if (!values.payment === !values.all || badPayment || (values.account !== undefined && !values.all)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  // The results are the output; the use case's own log lines would only repeat them.
  const stack = await buildStack({ config: loadConfig(), logger: createLogger('silent') });
  try {
    const results = values.all
      ? await stack.services.repair.repairAll(values.account)
      : [await stack.services.repair.repair(values.payment!)];
    for (const r of results) process.stdout.write(`${line(r)}\n`);
    const repaired = results.filter((r) => r.found === 'start' || r.found === 'replace' || (r.deliveriesResumed ?? 0) > 0).length;
    process.stdout.write(`${results.length} checked, ${repaired} repaired\n`);
    return results.some((r) => r.found === 'attention' || r.found === 'not_found') ? 1 : 0;
  } finally {
    await stack.stop();
  }
}

runCommand(main, 'repair could not run');
