/**
 * `npm run ledger:verify [-- --account acct_… | --all] [-- --skip-workflows]`: the ledger check of
 * docs/money.md, run by a worker (which holds the database, also `npm start`'s embedded one) as the
 * schedule runs it: one bounded run by default, every invariant of one account with `--account`, a
 * full pass with `--all`. `--skip-workflows` checks the database alone, from here, with no worker.
 * Prints a report; exit 0 when all hold, 1 on any breach, 2 on bad usage or when it could not run.
 */
import { parseArgs } from 'node:util';
import { type Config, loadConfig } from '../src/platform/config';
import { createDb } from '../src/platform/database/knex';
import { checkInWorker, checkText, ledgerService } from '../src/ledger/ledgerCheck.service';
import { connectClient, temporalTarget } from '../src/platform/stack';
import { runCommand } from './lib/cli';

const SCRIPT_CONNECT_TIMEOUT_MS = 3000;

const USAGE = 'usage: npm run ledger:verify [-- --account <account id> | --all] [--skip-workflows]';

async function main(): Promise<number> {
  let values: { account?: string; all?: boolean; 'skip-workflows'?: boolean };
  try {
    ({ values } = parseArgs({ options: { account: { type: 'string' }, all: { type: 'boolean' }, 'skip-workflows': { type: 'boolean' } } }));
    if (values.account && values.all) throw new Error('--account and --all: one or the other');
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const result = values['skip-workflows'] ? await onDatabase(config, values.account) : await inWorker(config, values);
  process.stdout.write(checkText(result, values.all));
  return result.violations ? 1 : 0;
}

/** `--skip-workflows`: the database's own invariants, checked from here. */
async function onDatabase(config: Config, accountId?: string) {
  const db = createDb(config.DATABASE_URL, config.DATA_DIR, 'leave out --skip-workflows: its worker then runs the check');
  try {
    return await ledgerService({ db }).check(accountId, { workflows: false });
  } finally {
    await db.destroy();
  }
}

/** The check run by a worker, as the schedule runs it; without TEMPORAL_ADDRESS, of the dev server `npm start` runs. */
async function inWorker(config: Config, opts: { account?: string; all?: boolean }) {
  // A few seconds: a server that answers at all answers at once; one that does not is named, with its setting.
  const client = await connectClient(temporalTarget(config, 'dev-server'), config.TEMPORAL_NAMESPACE, SCRIPT_CONNECT_TIMEOUT_MS);
  try {
    return await checkInWorker(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, accountId: opts.account, all: opts.all });
  } finally {
    await client.connection.close();
  }
}

runCommand(main, 'ledger:verify could not run');
