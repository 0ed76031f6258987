/**
 * `npm run reconcile -- take FILE | list [--json] | show ID`: the custody account's reconciliations
 * by hand (docs/reconciliation.md). `take` reconciles one camt.053 statement file of the custody
 * account now, as the workflow does for each statement the inbox takes (one result per statement
 * message id: taking it again replaces that one). `list` prints every reconciliation, newest first;
 * `show` one, by its id or its statement's message id. Exit 0 balanced (or listed, shown), 1 a break
 * or a rejected statement or no such reconciliation, 2 a usage or start-up error.
 */
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../src/platform/config';
import { createDb } from '../src/platform/database/knex';
import { createLogger } from '../src/platform/lib/logger';
import { statementReconciler } from '../src/reconciliation/reconciliation.activities';
import { reconciliationView } from '../src/reconciliation/reconciliation.view';
import { findReconciliation, listReconciliations } from '../src/reconciliation/reconciliations.repository';
import { parseCommand, runCommand } from './lib/cli';

const USAGE = 'usage: npm run reconcile -- take FILE | list [--json] | show ID';

async function main(): Promise<number> {
  const parsed = parseCommand(
    USAGE,
    (command, args) => (command === 'list' && args.length === 0) || ((command === 'take' || command === 'show') && args.length === 1),
  );
  if (!parsed) return 2;
  const { command, json } = parsed;
  const [arg] = parsed.args;
  const config = loadConfig();
  const db = createDb(config.DATABASE_URL);
  try {
    if (command === 'list') {
      const all = (await listReconciliations(db)).map(reconciliationView);
      if (json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
      else
        for (const r of all)
          process.stdout.write(
            `${r.id} ${r.date} ${r.currency} ${r.statement}: ${r.status}${r.status === 'break' ? ` (${r.breaks.join(', ')}; difference ${r.difference}, owed difference ${r.owed_difference})` : ''}\n`,
          );
      return 0;
    }
    if (command === 'show') {
      const row = await findReconciliation(db, arg);
      if (!row) {
        process.stderr.write(`no reconciliation ${arg}\n`);
        return 1;
      }
      process.stdout.write(`${JSON.stringify(reconciliationView(row), null, 2)}\n`);
      return 0;
    }
    const result = await statementReconciler({ db, config, logger: createLogger('silent') }).reconcileBytes(await readFile(arg));
    if (result.outcome === 'rejected') {
      process.stderr.write(`rejected: ${result.reason}\n`);
      return 1;
    }
    process.stdout.write(`${result.reconciliation.id} ${result.reconciliation.statement}: ${result.summary}\n`);
    return result.reconciliation.status === 'balanced' ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

runCommand(main, 'reconcile could not run');
