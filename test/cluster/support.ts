/**
 * What the cluster tests share: a database set of their own next to DATABASE_URL's, free ports, and
 * `npm run stack:cluster` started as an operator starts it, in its own process group, until it is ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { freeLowPort } from '../../src/platform/lib/net';
import { DEFAULT_TEST_DATABASE_URL, freePortPair } from '../../tools/testSupport';
import { eventually } from '../helpers/stack';

export interface StackState {
  ready: boolean;
  pid: number;
  apiUrls: string[];
  uiUrl: string;
  temporalAddress: string;
  processes: Record<string, number>;
  restarts: Record<string, number>;
  databases: { app: string; temporal: string; visibility: string };
  /** The database roles the APIs and the workers connect as (compose: payments_api, payments_worker). */
  roles: { api: string; worker: string };
}

/** The test database's server, its user made explicit (node-postgres does not fall back to the login name). */
export const baseUrl = (): URL => {
  const base = new URL(process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL);
  if (!base.username) base.username = process.env.PGUSER || os.userInfo().username;
  return base;
};

export const databaseUrl = (name: string): string => Object.assign(baseUrl(), { pathname: `/${name}` }).toString();

/** The application database `<test db>_<suffix>` and Temporal's two beside it, dropped so setup runs from scratch. */
export async function freshDatabases(suffix: string): Promise<{ appDb: string; appUrl: string }> {
  const appDb = `${baseUrl().pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    for (const name of [appDb, `${appDb}_temporal`, `${appDb}_temporal_visibility`])
      await admin.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
  return { appDb, appUrl: databaseUrl(appDb) };
}

/** The ports stack:cluster publishes, every one free (a user's own stack may hold the defaults), below the ephemeral range. */
export const clusterPorts = async () => ({
  PORT: String(await freePortPair()),
  TEMPORAL_PORT: String(await freeLowPort()),
  TEMPORAL_UI_PORT: String(await freeLowPort()),
});

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export interface ClusterRun {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  readState(): StackState;
  /** Ctrl-C to the process group, as on a terminal, then whatever is left killed (for afterAll). */
  stop(): Promise<void>;
}

/** `npm run stack:cluster` in `cwd`, until its state file says ready (or it exits: then throws with its output). */
export async function startCluster(cwd: string, env: NodeJS.ProcessEnv, stateFile: string, timeoutMs = 380_000): Promise<ClusterRun> {
  let output = '';
  const child = spawn('npm', ['run', '--silent', 'stack:cluster'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  // Once npm and the stack have let go of the output too: npm can end on Ctrl-C before the stack has
  // said that it stopped, and 'exit' would then come before the stack's last line.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const readState = (): StackState => JSON.parse(fs.readFileSync(stateFile, 'utf8')) as StackState;
  const run: ClusterRun = {
    child,
    output: () => output,
    exited,
    readState,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGINT');
        } catch {
          /* already gone */
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
      }
      if (fs.existsSync(stateFile)) for (const pid of Object.values(readState().processes)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`stack:cluster exited with ${child.exitCode}:\n${output}`);
      if (!fs.existsSync(stateFile)) return undefined;
      const s = readState();
      return s.ready ? s : undefined;
    },
    timeoutMs,
    'stack:cluster to be ready',
  ).catch(async (err: Error) => {
    await run.stop();
    throw new Error(`${err.message}\n${output}`);
  });
  return run;
}
