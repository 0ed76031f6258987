/**
 * (A)'s service, started as processes of their own so that each one's CPU is measured apart:
 *  - `dev`: a Temporal dev server (in memory), one worker (`src/bin/worker.ts`) and one API
 *    (`src/bin/api.ts`), as `npm run worker` / `npm run api` run them;
 *  - `cluster`: `npm run stack:cluster` — docker-compose.yml's topology without containers: the
 *    Temporal server on PostgreSQL, two APIs and two workers (clients alternate between the APIs).
 * Both against DATABASE_URL's server (the cluster in a database of its own, `<name>_cluster`), with a
 * fresh account whose test key the clients use.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createAccount } from '../../src/tenants/tenants.repository';
import { createDb, migrate } from '../../src/platform/database/knex';
import { SEARCH_ATTRIBUTE_TYPES } from '../../src/platform/searchAttributes.rules';
import { ephemeralPortRange, freePort } from '../../src/platform/lib/net';
import { freePortPair } from '../../tools/testSupport';
import { startDevServer } from '../../src/platform/lib/temporalDevServer';
import { answers, startChild } from './child';
import { findDevServerPid } from './proc';
import { dataConverter } from '../../src/platform/worker/dataConverter';

export type StackKind = 'dev' | 'cluster';

/** Process name → its pids (several for the cluster's replicas). */
export type ProcessPids = Record<string, number[]>;

export interface ServiceTarget {
  kind: StackKind;
  apiUrls: string[];
  testKey: string;
  temporalAddress: string;
  namespace: string;
  client: Client;
  databaseUrl: string;
  pids: ProcessPids;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');

const secrets = () => ({
  SERVICE_JWT_SECRET: randomBytes(32).toString('base64'),
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  AUDIT_SIGNING_KEY: randomBytes(32).toString('base64'),
});

/**
 * The bench is one credential: the API's per-credential rate limit would measure itself; and one test
 * account, whose open payments `--reads` may take past the test default (the count is still kept).
 */
const APP_SETTINGS = {
  LOG_LEVEL: 'error',
  RATE_LIMIT_PER_SECOND: '1000000',
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_LOOPBACK_PORTS: ephemeralPortRange(),
  MAX_OPEN_PAYMENTS_TEST: '100000000',
};

async function benchAccount(databaseUrl: string): Promise<string> {
  const db = createDb(databaseUrl);
  try {
    return (await createAccount(db, `bench-${Date.now()}-${process.pid}@example.com`, 'bench-password')).test_api_key;
  } finally {
    await db.destroy();
  }
}

async function temporalClient(address: string, namespace: string): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address }), namespace, dataConverter });
}

/** `settings`: more of the service's settings, for the dev stack (scripts/bench-neighbours.ts). */
export async function startTarget(
  kind: StackKind,
  databaseUrl: string,
  log: (msg: string) => void,
  settings: Record<string, string> = {},
): Promise<ServiceTarget> {
  return kind === 'dev' ? startDev(databaseUrl, log, settings) : startCluster(databaseUrl, log);
}

async function startDev(databaseUrl: string, log: (msg: string) => void, settings: Record<string, string>): Promise<ServiceTarget> {
  const db = createDb(databaseUrl);
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
  const server = await startDevServer({ port: await freePort(), headless: true, searchAttributes: SEARCH_ATTRIBUTE_TYPES, log });
  const stops: (() => Promise<void>)[] = [() => server.stop()];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const common = {
      ...APP_SETTINGS,
      ...settings,
      ...secrets(),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: server.address,
      HOST: '127.0.0.1',
    };
    const workerMetrics = await freePort();
    log('starting the worker (bundles the workflows)');
    const worker = await startChild(
      'worker',
      'src/bin/worker.ts',
      { ...common, WORKER_METRICS_PORT: String(workerMetrics) },
      answers(`http://127.0.0.1:${workerMetrics}/healthz`),
    );
    stops.push(() => worker.stop());
    const apiPort = await freePort();
    log('starting the API');
    const api = await startChild(
      'api',
      'src/bin/api.ts',
      { ...common, PORT: String(apiPort), API_METRICS_PORT: String(await freePort()) },
      answers(`http://127.0.0.1:${apiPort}/readyz`),
    );
    stops.push(() => api.stop());
    const client = await temporalClient(server.address, 'default');
    stops.push(() => client.connection.close());
    return {
      kind: 'dev',
      apiUrls: [`http://127.0.0.1:${apiPort}`],
      testKey: await benchAccount(databaseUrl),
      temporalAddress: server.address,
      namespace: 'default',
      client,
      databaseUrl,
      pids: { api: [api.pid], worker: [worker.pid], temporal: [findDevServerPid(server.pid)].filter((p) => p !== undefined) },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface ClusterState {
  ready: boolean;
  apiUrls: string[];
  temporalAddress: string;
  databases: { app: string };
  processes: Record<string, number | undefined>;
}

async function startCluster(databaseUrl: string, log: (msg: string) => void): Promise<ServiceTarget> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cluster-'));
  const stateFile = path.join(dir, 'state.json');
  const outFile = path.join(dir, 'stack.log');
  const out = fs.openSync(outFile, 'w');
  // A database of its own: the ledger check of the cluster's workers would ask its Temporal server
  // about the dev server's payments.
  const own = new URL(databaseUrl);
  own.pathname = `${own.pathname.replace(/\/$/, '') || '/bench'}_cluster`;
  const stack = spawn('npm', ['run', '--silent', 'stack:cluster'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...APP_SETTINGS,
      DATABASE_URL: own.toString(),
      PORT: String(await freePortPair()),
      TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      STACK_DATA_DIR: dir,
      STACK_STATE_FILE: stateFile,
    },
    stdio: ['ignore', out, out],
    detached: true,
  });
  fs.closeSync(out);
  // npm does not pass SIGTERM on to the stack it runs: signal the whole process group (detached).
  const group = (signal: NodeJS.Signals | 0) => {
    try {
      process.kill(-stack.pid!, signal);
      return true;
    } catch {
      return false; // the group is gone
    }
  };
  const stop = async () => {
    if (!group('SIGTERM')) return;
    const deadline = Date.now() + 60_000;
    while (group(0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    group('SIGKILL');
  };
  try {
    log(`starting npm run stack:cluster (log: ${outFile})`);
    const deadline = Date.now() + 600_000;
    let state: ClusterState | undefined;
    while (!state?.ready) {
      if (stack.exitCode !== null)
        throw new Error(`stack:cluster exited with ${stack.exitCode}:\n${fs.readFileSync(outFile, 'utf8').slice(-3000)}`);
      if (Date.now() > deadline)
        throw new Error(`stack:cluster not ready in 10 minutes:\n${fs.readFileSync(outFile, 'utf8').slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 500));
      if (fs.existsSync(stateFile)) state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ClusterState;
    }
    const url = new URL(own);
    url.pathname = `/${state.databases.app}`;
    const group = (prefix: string) =>
      Object.entries(state.processes)
        .filter(([name, pid]) => name.startsWith(prefix) && pid)
        .map(([, pid]) => pid!);
    const client = await temporalClient(state.temporalAddress, 'default');
    return {
      kind: 'cluster',
      apiUrls: state.apiUrls,
      testKey: await benchAccount(url.toString()),
      temporalAddress: state.temporalAddress,
      namespace: 'default',
      client,
      databaseUrl: url.toString(),
      pids: { api: group('api-'), worker: group('worker-'), temporal: state.processes.temporal ? [state.processes.temporal] : [] },
      stop: async () => {
        await client.connection.close().catch(() => undefined);
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
