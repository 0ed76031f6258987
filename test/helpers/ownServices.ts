/**
 * Services a fault test owns, so that it may stop, kill and restart them: a PostgreSQL instance in
 * its own data directory on its own port, and a Temporal dev server persisted in its own file.
 * Both are the real programs (Debian's PostgreSQL binaries, the Temporal CLI).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_TYPES } from '../../src/platform/searchAttributes.rules';
import { freePort } from '../../src/platform/lib/net';
import { findTemporalCli } from '../../src/platform/lib/temporalDevServer';
import { eventually } from './stack';

function postgresBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const version = fs.readdirSync(root).sort().at(-1);
  if (!version) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  return path.join(root, version, 'bin', name);
}

/** initdb refuses to run as root: run PostgreSQL's tools as the postgres user when we are root. */
function asPostgres(bin: string, args: string[]): void {
  const command = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args];
  execFileSync(command[0], command.slice(1), { stdio: 'pipe' });
}

export interface OwnPostgres {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-pg-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  asPostgres(postgresBin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = () =>
    asPostgres(postgresBin('pg_ctl'), [
      '-D',
      data,
      '-w',
      '-l',
      path.join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    // Immediate: like a crash, connections are cut mid-statement.
    stop: () => asPostgres(postgresBin('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']),
    start,
    destroy() {
      try {
        asPostgres(postgresBin('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnTemporal {
  address: string;
  kill(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnTemporal(): Promise<OwnTemporal> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-temporal-'));
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const cli = await findTemporalCli();
  if (!cli) throw new Error('no Temporal CLI (set TEMPORAL_CLI_PATH)');
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--db-filename',
    path.join(dir, 'temporal.sqlite'),
    '--log-level',
    'error',
  ];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_TYPES)) args.push('--search-attribute', `${name}=${type}`);
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(cli, args, { stdio: 'ignore' });
    await eventually(
      async () => {
        const connection = await Connection.connect({ address, connectTimeout: 1000 }).catch(() => undefined);
        if (!connection) return undefined;
        try {
          await connection.workflowService.getSystemInfo({});
          return true;
        } catch {
          return undefined;
        } finally {
          await connection.close();
        }
      },
      60_000,
      'the Temporal dev server',
    );
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    address,
    kill,
    start,
    async destroy() {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
