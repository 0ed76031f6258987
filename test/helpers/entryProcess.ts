/**
 * One of the project's entry files (src/bin/api.ts, src/bin/worker.ts, …) as its own process, the way
 * `npm run` starts it, against this run's Temporal dev server and PostgreSQL.
 */
import fs from 'node:fs';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { inject } from 'vitest';
import { TEST_LOOPBACK_PORTS } from './stack';

const ROOT = path.resolve(__dirname, '../..');

/**
 * `node --import tsx <entry>` from the project's root, polling `taskQueue`, with `env` over the run's
 * addresses. Not the tsx CLI: the child is the service process itself, so a SIGKILL really kills it
 * (the CLI would die alone and leave its node child running).
 */
export function spawnEntry(entry: string, taskQueue: string, env: Record<string, string>): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      // As test stacks: receivers on loopback, never on the shared dev server's ports.
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_LOOPBACK_PORTS: TEST_LOOPBACK_PORTS,
      STACK_PORTS: inject('temporalPorts'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Processes whose command line mentions `text` (the dev server gets `--db-filename <DATA_DIR>/…`). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}
