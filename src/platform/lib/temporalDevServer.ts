/**
 * Find the real Temporal CLI and run its dev server (docs/commands.md, "The Temporal CLI"). Used by `npm start` and by
 * the test suite, so both run against the same real server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { waitReporting } from './childProgress';
import { freePort, listeningPorts } from './net';

const PROJECT_ROOT = path.resolve(__dirname, '../../..');
const CLI_CACHE_DIR = path.join(PROJECT_ROOT, '.cache', 'bin');
/** Read by tools/local-cluster/temporal-binaries.sh (it builds the same CLI for CI): keep it exported on one line. */
export const CLI_VERSION = 'v1.5.1';

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The CLI in this order: TEMPORAL_CLI_PATH; `temporal` on PATH; the project's cache folder; a copy
 * of the machine-wide cache that tools/local-cluster/temporal-binaries.sh fills; else built with
 * `go install` into the cache where Go exists (saying why, with a line every 10 s while it builds);
 * else undefined (the caller falls back to the Temporal SDK's own download).
 */
export async function findTemporalCli(log: (msg: string) => void = () => undefined): Promise<string | undefined> {
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} does not exist`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  const cached = path.join(CLI_CACHE_DIR, 'temporal');
  if (fs.existsSync(cached)) return cached;
  // Another clone on this machine (or CI) built it already: copy it rather than build it again.
  const shared = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'payment-custody', `temporal-${CLI_VERSION}`);
  if (fs.existsSync(shared)) {
    fs.mkdirSync(CLI_CACHE_DIR, { recursive: true });
    fs.copyFileSync(shared, cached);
    fs.chmodSync(cached, 0o755);
    return cached;
  }
  const go = onPath('go') ?? (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) return undefined;
  const module = `github.com/temporalio/cli/cmd/temporal@${CLI_VERSION}`;
  log(
    `no Temporal CLI found (TEMPORAL_CLI_PATH unset, no \`temporal\` on PATH, none in ${CLI_CACHE_DIR} or ${shared}): ` +
      `building it once with \`${go} install ${module}\` into ${CLI_CACHE_DIR}, where later starts find it (a few minutes)`,
  );
  fs.mkdirSync(CLI_CACHE_DIR, { recursive: true });
  const build = spawn(go, ['install', module], { env: { ...process.env, GOBIN: CLI_CACHE_DIR }, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await waitReporting(build, 'building the Temporal CLI', log);
  if (code !== 0 || !fs.existsSync(cached)) throw new Error('go install of the Temporal CLI failed');
  log(`built the Temporal CLI: ${cached}`);
  return cached;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  /** The server process's id, when this module spawned it (benchmarks read its memory). */
  pid?: number;
  /**
   * Every port it listens on: gRPC, its HTTP API, /metrics, the UI, and, where the process can be
   * looked at (Linux's /proc, or lsof), its internal services' ports too.
   */
  ports: number[];
  /** When the server process this module spawned has exited since it came up: how, with the end of its output. */
  exited?: () => string | undefined;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  port: number;
  uiPort?: number;
  /** Its HTTP API and /metrics: free ports unless given, named here so that the stack knows them. */
  httpPort?: number;
  metricsPort?: number;
  namespace?: string;
  /** Persist workflows across restarts; in memory when unset. */
  dbFilename?: string;
  headless?: boolean;
  /** Search attributes to register, name → type (e.g. Keyword). */
  searchAttributes?: Record<string, string>;
  /** Dynamic config values (`key=value`) beyond production's. */
  dynamicConfig?: string[];
  log?: (msg: string) => void;
}

/** Dynamic config the dev server runs with, as production is configured (deploy/temporal/dynamicconfig/production.yaml). */
const PRODUCTION_DYNAMIC_CONFIG = [
  // As production.yaml: the activity a workflow task schedules (a transition's publication) goes
  // back to that worker with the task's answer (docs/capacity.md).
  'system.enableActivityEagerExecution=true',
  // start-dev forces a search-attribute cache refresh on every read, which no production server does (the service registers them at start).
  'system.forceSearchAttributesCacheRefreshOnRead=false',
  // As production.yaml: Task Queue Fairness, so one tenant's delivery backlog (its fairness key,
  // account and mode) is dispatched in turn with the others' (docs/webhooks.md, "No tenant slows another").
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  // As production.yaml: Update-with-Start, a payment's create (docs/architecture.md, "One writer per aggregate").
  'frontend.enableExecuteMultiOperation=true',
];

async function waitForServer(address: string, child: ChildProcess | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`temporal dev server at ${address} did not come up: ${String(lastError)}`);
}

/**
 * The ports the server process listens on once it is whole: those named on its command line have
 * opened (the UI starts beside the server) and two looks a moment apart agree, so the internal
 * services' ports are in. Where the process cannot be looked at, the named ones.
 */
async function allPortsOf(pid: number, named: number[]): Promise<number[]> {
  let last: number[] = [];
  for (let look = 0; look < 40; look++) {
    const now = listeningPorts(pid).sort((a, b) => a - b);
    if (now.length === 0) return named;
    if (named.every((p) => now.includes(p)) && now.join() === last.join()) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 250));
  }
  return [...new Set([...named, ...last])];
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const log = opts.log ?? (() => undefined);
  const namespace = opts.namespace ?? 'default';
  const cli = await findTemporalCli(log);
  const searchAttributes = Object.entries(opts.searchAttributes ?? {}).map(([k, v]) => `${k}=${v}`);
  // The CLI would pick these at random; chosen here, they are ports the stack knows (none a webhook may target).
  const httpPort = opts.httpPort ?? (await freePort());
  const metricsPort = opts.metricsPort ?? (await freePort());
  const portArgs = ['--http-port', String(httpPort), '--metrics-port', String(metricsPort)];
  const namedPorts = [opts.port, httpPort, metricsPort, ...(opts.headless || !opts.uiPort ? [] : [opts.uiPort])];
  if (!cli) {
    log('no Temporal CLI and no Go: using the Temporal SDK download of the dev server');
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        port: opts.port,
        ui: !opts.headless,
        uiPort: opts.uiPort,
        namespace,
        dbFilename: opts.dbFilename,
        extraArgs: [
          ...portArgs,
          ...searchAttributes.flatMap((s) => ['--search-attribute', s]),
          ...[...PRODUCTION_DYNAMIC_CONFIG, ...(opts.dynamicConfig ?? [])].flatMap((value) => ['--dynamic-config-value', value]),
        ],
      },
    });
    return {
      address: `127.0.0.1:${opts.port}`,
      uiUrl: opts.headless ? undefined : `http://127.0.0.1:${opts.uiPort}`,
      // The SDK's download runs out of sight: only the ports named here are known.
      ports: namedPorts,
      stop: () => env.teardown(),
    };
  }
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--namespace', namespace, '--log-level', 'error'];
  args.push(...portArgs);
  args.push(...[...PRODUCTION_DYNAMIC_CONFIG, ...(opts.dynamicConfig ?? [])].flatMap((value) => ['--dynamic-config-value', value]));
  if (opts.headless || !opts.uiPort) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort));
  if (opts.dbFilename) {
    fs.mkdirSync(path.dirname(opts.dbFilename), { recursive: true });
    args.push('--db-filename', opts.dbFilename);
  }
  for (const sa of searchAttributes) args.push('--search-attribute', sa);
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const address = `127.0.0.1:${opts.port}`;
  try {
    await waitForServer(address, child, 60_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  const ports = child.pid === undefined ? namedPorts : await allPortsOf(child.pid, namedPorts);
  return {
    address,
    uiUrl: opts.headless || !opts.uiPort ? undefined : `http://127.0.0.1:${opts.uiPort}`,
    pid: child.pid,
    ports,
    exited: () =>
      child.exitCode === null && child.signalCode === null
        ? undefined
        : `exited (${child.exitCode ?? child.signalCode}): ${stderr.trim().split('\n').slice(-3).join('\n').slice(-1000)}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/**
 * Temporal's per-fairness-key rate limit on an activity task queue (`temporal task-queue config set
 * --fairness-key-rps-limit-default`): each key (a tenant's account and mode, for the webhooks queue)
 * gets at most `rps` tasks a second, whatever the others' backlog (docs/webhooks.md). Idempotent.
 */
export async function setFairnessKeyRateLimit(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  rps: number;
  reason: string;
}) {
  const cli = await findTemporalCli();
  if (!cli) throw new Error('no Temporal CLI to set the task queue’s fairness key rate limit with');
  const args = ['task-queue', 'config', 'set', '--address', opts.address, '--namespace', opts.namespace];
  args.push('--task-queue', opts.taskQueue, '--task-queue-type', 'activity');
  args.push('--fairness-key-rps-limit-default', String(opts.rps), '--fairness-key-rps-limit-reason', opts.reason);
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('exit', resolve));
  if (code !== 0) throw new Error(`temporal task-queue config set failed (${code}): ${stderr.trim()}`);
}
