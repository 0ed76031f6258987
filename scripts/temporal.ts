/**
 * `npm run temporal -- workflow list --query 'PaymentStatus="disputed"'`: the project's own
 * Temporal CLI (found as `npm start` finds it), pointed at the local dev server unless told
 * otherwise (`--address`, or TEMPORAL_ADDRESS). `workflow describe` shows search attributes readably.
 */
import { spawnSync } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { findTemporalCli } from '../src/platform/lib/temporalDevServer';
import { temporalTarget, temporalUnreachable } from '../src/platform/lib/temporalTarget';

const args = process.argv.slice(2);
const target = temporalTarget(
  { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS || undefined, TEMPORAL_DEV_PORT: Number(process.env.TEMPORAL_DEV_PORT ?? '7233') },
  'dev-server',
);
const address = target.address;
// Only commands that talk to a server take --address; `temporal --version` and `help` do not.
const talksToServer =
  args.length > 0 &&
  !['help', 'server', 'completion'].includes(args[0]) &&
  !args.includes('--version') &&
  !args.some((a) => a === '--address' || a.startsWith('--address='));
const fullArgs = talksToServer ? [...args, '--address', address] : args;

/**
 * `workflow describe` prints search attributes as protobuf text (`map[PaymentStatus:metadata:{…}
 * data:"\"in_custody\""]`); in its plain output they are rewritten as `PaymentStatus=in_custody, …`.
 */
function readableSearchAttributes(text: string): string {
  return text.replace(/^(\s*SearchAttributes\s+)map\[(.*)\]$/m, (line, head: string, body: string) => {
    const pairs = [...body.matchAll(/(\w+):metadata:\{[^}]*\} metadata:\{key:"type" value:"\w+"\} data:"((?:[^"\\]|\\.)*)"/g)];
    if (pairs.length === 0) return line;
    try {
      const value = (data: string) => JSON.parse(JSON.parse(`"${data}"`) as string) as unknown;
      return head + pairs.map(([, name, data]) => `${name}=${String(value(data))}`).join(', ');
    } catch {
      return line;
    }
  });
}

/** The server the command would talk to, reached in a few seconds, or a message naming the address and the setting. */
async function reachable(): Promise<void> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 3000 });
    await connection.close();
  } catch (err) {
    throw temporalUnreachable(target, err);
  }
}

async function main() {
  const cli = await findTemporalCli((msg) => process.stderr.write(`${msg}\n`));
  if (!cli) {
    process.stderr.write('no Temporal CLI found: set TEMPORAL_CLI_PATH, or install Go so that it can be built\n');
    process.exit(1);
  }
  // The CLI's own words for a server it cannot reach name neither the setting nor, often, the address.
  if (talksToServer) await reachable();
  const plainDescribe = args[0] === 'workflow' && args[1] === 'describe' && !args.some((a) => /^(-o|--output)(=|$)/.test(a));
  if (plainDescribe) {
    const result = spawnSync(cli, fullArgs, { stdio: ['inherit', 'pipe', 'inherit'], encoding: 'utf8' });
    process.stdout.write(readableSearchAttributes(result.stdout ?? ''));
    process.exit(result.status ?? 1);
  }
  const result = spawnSync(cli, fullArgs, { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
