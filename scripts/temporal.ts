/**
 * `npm run temporal -- workflow list --query 'PaymentStatus="disputed"'`: the project's own
 * Temporal CLI (found as `npm start` finds it), pointed at the local dev server unless told
 * otherwise (`--address`, or TEMPORAL_ADDRESS).
 */
import { spawnSync } from 'node:child_process';
import { findTemporalCli } from '../src/lib/temporalDevServer';

const args = process.argv.slice(2);
const cli = findTemporalCli((msg) => process.stderr.write(`${msg}\n`));
if (!cli) {
  process.stderr.write('no Temporal CLI found: set TEMPORAL_CLI_PATH, or install Go so that it can be built\n');
  process.exit(1);
}
const address = process.env.TEMPORAL_ADDRESS ?? `127.0.0.1:${process.env.TEMPORAL_DEV_PORT ?? '7233'}`;
// Only commands that talk to a server take --address; `temporal --version` and `help` do not.
const talksToServer =
  args.length > 0 &&
  !['help', 'server', 'completion'].includes(args[0]) &&
  !args.includes('--version') &&
  !args.some((a) => a === '--address' || a.startsWith('--address='));
const result = spawnSync(cli, talksToServer ? [...args, '--address', address] : args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
