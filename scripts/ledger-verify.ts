/**
 * `npm run ledger:verify [-- --account acct_…] [-- --skip-workflows]`: checks every invariant of
 * docs/money.md and prints a report; exit 0 when all hold, 1 on any breach, 2 on bad usage.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import { ledgerReport, verifyLedger } from '../src/db/ledger';
import type { PaymentState } from '../src/domain/paymentTypes';
import { DEFAULT_TEMPORAL_ADDRESS, connectClient } from '../src/stack';
import { queryOrUndefined } from '../src/lib/workflowQuery';
import { getPaymentQuery } from '../src/workflows';

async function main(): Promise<number> {
  let values: { account?: string; 'skip-workflows'?: boolean };
  try {
    ({ values } = parseArgs({ options: { account: { type: 'string' }, 'skip-workflows': { type: 'boolean' } } }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\nusage: npm run ledger:verify [-- --account <account id>] [--skip-workflows]\n`);
    return 2;
  }
  const config = loadConfig();
  const db = createDb(config.DATABASE_URL, config.DATA_DIR);
  const client = values['skip-workflows']
    ? undefined
    : await connectClient(config.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  try {
    const workflowState = (id: string): Promise<PaymentState | undefined> =>
      client ? queryOrUndefined<PaymentState>(client, id, getPaymentQuery.name) : Promise.resolve(undefined);
    const violations = (await verifyLedger(db, workflowState, values.account)).filter((v) => client || v.check !== 'workflow_state');
    process.stdout.write(`${ledgerReport(violations)}\n`);
    return violations.length ? 1 : 0;
  } finally {
    await client?.connection.close();
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`ledger:verify could not run: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
