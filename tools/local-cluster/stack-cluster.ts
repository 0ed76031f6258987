/**
 * `npm run stack:cluster`: docker-compose.yml's production topology on this machine, without containers
 * (docs/deploy.md shows which process stands for which compose service):
 *
 *   PostgreSQL at DATABASE_URL (creates the database if missing, as deploy/postgres/init does)
 *   temporal-schema             deploy/temporal/setup-schema.sh → <db>_temporal, <db>_temporal_visibility
 *   temporal                    temporal-server start (go.temporal.io/server at compose's tag), TEMPORAL_PORT
 *   temporal-search-attributes  deploy/temporal/register-search-attributes.sh with compose's arguments
 *   temporal-ui                 ui-server (temporalio/ui's server at compose's tag), TEMPORAL_UI_PORT
 *   (roles)                     <db>_api and <db>_worker, created if missing (compose: payments_api, payments_worker)
 *   migrate                     npm run migrate, granting the roles;  then npm run build:workflows (the image's build step)
 *   api ×2                      node --import tsx src/bin/api.ts on PORT and PORT+1 (NODE_ENV=production), as <db>_api
 *   worker ×2                   node --import tsx src/bin/worker.ts (the production workflow bundle), as <db>_worker
 *
 * Long-running processes are restarted when they die (compose's `restart: unless-stopped`), after
 * STACK_RESTART_DELAY_MS (default 1000). Ctrl-C (or SIGTERM) stops every process it started: APIs first,
 * then workers, the UI and the Temporal server, each with SIGTERM and then SIGKILL after its grace period.
 *
 * Settings: PORT (3000), TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8080), DATABASE_URL
 * (postgres://127.0.0.1:5432/payments), HOST (127.0.0.1), STACK_DATA_DIR (.data/cluster/<db>: secrets
 * and logs), STACK_STATE_FILE (<data dir>/state.json: URLs and process ids, for scripts and tests).
 * The Temporal binaries (server, temporal-sql-tool, UI server, CLI) are installed on first use by
 * temporal-binaries.sh beside this file: copied from the machine-wide cache, else built with Go once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freeLowPort } from '../../src/platform/lib/net';
import { binaryDirs, ensureBinaries } from './binaries';
import { ROOT, composeVersions } from './compose';
import { renderDockerizeTemplate } from './dockerizeTemplate';
import { internalPortCount, planCluster, readSettings, type InternalPorts, type Plan, type Secrets, type Step } from './plan';

const say = (msg: string) => process.stdout.write(`stack:cluster: ${msg}\n`);

interface Running {
  step: Step;
  child: ChildProcess;
  exited: Promise<number | null>;
}

const running = new Map<string, Running>();
const restarts: Record<string, number> = {};
let stopping = false;
let state: Record<string, unknown> = {};
let stateFile = '';
let logDir = '';

function writeState(extra: Record<string, unknown> = {}) {
  state = {
    ...state,
    ...extra,
    pid: process.pid,
    processes: Object.fromEntries([...running].map(([name, r]) => [name, r.child.pid])),
    restarts,
  };
  fs.writeFileSync(`${stateFile}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(`${stateFile}.tmp`, stateFile);
}

function loadSecrets(dir: string): Secrets {
  const file = path.join(dir, 'secrets.json');
  // Secrets a stack made before them lacks are added once: the signing key (the custody trail), the roles' password.
  const later = () => ({
    AUDIT_SIGNING_KEY: randomBytes(32).toString('base64'),
    DATABASE_ROLE_PASSWORD: randomBytes(24).toString('hex'),
  });
  if (fs.existsSync(file)) {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Secrets> &
      Pick<Secrets, 'SERVICE_JWT_SECRET' | 'WEBHOOK_SECRET_KEY'>;
    if (stored.AUDIT_SIGNING_KEY && stored.DATABASE_ROLE_PASSWORD) return stored as Secrets;
    const upgraded: Secrets = { ...later(), ...stored };
    fs.writeFileSync(file, `${JSON.stringify(upgraded)}\n`, { mode: 0o600 });
    return upgraded;
  }
  const secrets: Secrets = {
    SERVICE_JWT_SECRET: randomBytes(48).toString('base64url'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    ...later(),
  };
  fs.writeFileSync(file, `${JSON.stringify(secrets)}\n`, { mode: 0o600 });
  return secrets;
}

/** `n` distinct free ports below the ephemeral range, none of them in `avoid`. */
async function distinctFreePorts(n: number, avoid: number[]): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) {
    const p = await freeLowPort();
    if (!avoid.includes(p)) ports.add(p);
  }
  return [...ports];
}

/**
 * The api's and the workers' roles (compose: deploy/postgres/init creates payments_api and
 * payments_worker), created when missing, their password set, allowed to connect to the database;
 * their table privileges are migrate's to grant (src/platform/database/roles.ts). DATABASE_URL's role must be allowed
 * to create roles.
 */
async function ensureRoles(url: string, database: string, roles: { api: string; worker: string }, password: string): Promise<void> {
  const admin = new URL(url);
  if (!admin.username) admin.username = process.env.PGUSER || os.userInfo().username;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  const id = (name: string) => `"${name.replace(/"/g, '""')}"`;
  try {
    for (const role of [roles.api, roles.worker]) {
      const found = await client.query('select 1 from pg_roles where rolname = $1', [role]);
      // A password is a literal in CREATE/ALTER ROLE (no parameters there): hex digits only, so nothing to escape.
      if (!/^[0-9a-f]+$/.test(password)) throw new Error('DATABASE_ROLE_PASSWORD in secrets.json must be hex digits');
      const verb = found.rowCount === 0 ? 'create' : 'alter';
      await client.query(`${verb} role ${id(role)} login password '${password}'`).catch((err: Error) => {
        throw new Error(`cannot ${verb} role ${role} as ${admin.username} (DATABASE_URL's role needs CREATEROLE): ${err.message}`);
      });
      if (verb === 'create') say(`created role ${role}`);
      await client.query(`grant connect on database ${id(database)} to ${id(role)}`);
    }
  } finally {
    await client.end();
  }
}

/** The application database next to Temporal's, created if missing (compose: deploy/postgres/init). */
async function ensureDatabase(url: string, name: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  // libpq falls back to the login name when the URL names no user; node-postgres needs telling.
  if (!admin.username) admin.username = process.env.PGUSER || os.userInfo().username;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`create database "${name.replace(/"/g, '""')}"`);
      say(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

function start(step: Step): Running {
  const log = fs.openSync(path.join(logDir, `${step.name}.log`), 'a');
  // Its own process group: Ctrl-C reaches the stack only, which then stops each process in order.
  const child = spawn(step.command, step.args, { cwd: step.cwd, env: step.env, stdio: ['ignore', log, log], detached: true });
  fs.closeSync(log);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null)));
    child.once('error', (err) => {
      fs.appendFileSync(path.join(logDir, `${step.name}.log`), `spawn failed: ${err.message}\n`);
      resolve(127);
    });
  });
  const entry = { step, child, exited };
  if (step.kind === 'service') {
    running.set(step.name, entry);
    void exited.then((code) => {
      if (stopping || running.get(step.name) !== entry) return;
      running.delete(step.name);
      restarts[step.name] = (restarts[step.name] ?? 0) + 1;
      const delay = Number(process.env.STACK_RESTART_DELAY_MS ?? 1000);
      say(`${step.name} (pid ${child.pid}) exited with ${code}; restarting in ${delay} ms (restart: unless-stopped)`);
      writeState();
      setTimeout(() => {
        if (stopping) return;
        const again = start(step);
        say(`${step.name} restarted (pid ${again.child.pid})`);
        writeState();
      }, delay);
    });
  }
  return entry;
}

function tail(name: string, lines = 30): string {
  try {
    return fs
      .readFileSync(path.join(logDir, `${name}.log`), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .join('\n');
  } catch {
    return '';
  }
}

async function runOnce(step: Step): Promise<void> {
  say(`${step.name}: ${[path.basename(step.command), ...step.args].join(' ')}`);
  const code = await start(step).exited;
  if (code !== 0)
    throw new Error(`${step.name} failed with exit code ${code}; ${path.join(logDir, `${step.name}.log`)} ends:\n${tail(step.name)}`);
}

async function healthy(step: Step, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const check = async (): Promise<boolean> => {
    const h = step.health!;
    if ('tcp' in h) {
      return new Promise((resolve) => {
        const socket = net.connect(h.tcp, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
    }
    return fetch(h.http, { signal: AbortSignal.timeout(3000) }).then(
      (r) => r.ok,
      () => false,
    );
  };
  while (!(await check())) {
    const proc = running.get(step.name);
    if (!proc) throw new Error(`${step.name} exited while starting; ${path.join(logDir, `${step.name}.log`)} ends:\n${tail(step.name)}`);
    if (Date.now() > deadline) throw new Error(`${step.name} is not healthy after ${timeoutMs} ms; log ends:\n${tail(step.name)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopAll(): Promise<void> {
  stopping = true;
  // APIs first (no new requests), then workers (drain), the UI, and the Temporal server last.
  const order = ['api', 'worker', 'temporal-ui', 'temporal'];
  const groups = order.map((service) => [...running.values()].filter((r) => r.step.service === service));
  for (const group of groups) {
    await Promise.all(
      group.map(async ({ step, child, exited }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), step.stopGraceMs);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
  running.clear();
}

async function main() {
  const settings = readSettings(process.env);
  const versions = composeVersions();
  const bin = binaryDirs(versions);
  // A fresh clone has none of them: install what is missing, as `npm start` builds its CLI itself.
  ensureBinaries(bin, say);
  // The binaries must be the release the compose file pins (a stale cache would silently differ).
  const serverVersion = spawnSync(bin.temporalServer, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!serverVersion.includes(versions.server.slice(1)))
    throw new Error(`${bin.temporalServer} reports "${serverVersion}", docker-compose.yml pins ${versions.server}`);

  const appDb = decodeURIComponent(new URL(settings.DATABASE_URL).pathname.slice(1));
  const dataDir = path.resolve(process.env.STACK_DATA_DIR ?? path.join(ROOT, '.data', 'cluster', appDb));
  logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  stateFile = path.resolve(process.env.STACK_STATE_FILE ?? path.join(dataDir, 'state.json'));
  fs.rmSync(stateFile, { force: true });
  const secrets = loadSecrets(dataDir);

  const avoid = [settings.PORT, settings.PORT + 1, settings.TEMPORAL_PORT, settings.TEMPORAL_UI_PORT];
  const free = await distinctFreePorts(internalPortCount() - 4, avoid);
  const [frontendMembership, historyMembership, matchingMembership, workerMembership] = await distinctFreePorts(4, [...avoid, ...free]);
  const [frontendHttp, history, matching, worker, ...metrics] = free;
  const ports: InternalPorts = {
    frontendHttp,
    frontendMembership,
    history,
    historyMembership,
    matching,
    matchingMembership,
    worker,
    workerMembership,
    metrics,
  };
  const uiRoot = path.join(dataDir, 'temporal-ui');
  const plan: Plan = planCluster({ settings, ports, secrets, env: process.env, uiRoot, dataDir });
  // The UI image's configuration, as its start script makes it: the dockerize template rendered over the
  // environment (older releases), or config/docker.yaml that ui-server templates itself (newer ones).
  const ui = plan.steps.find((s) => s.service === 'temporal-ui')!;
  fs.mkdirSync(path.join(uiRoot, 'config'), { recursive: true });
  fs.writeFileSync(
    path.join(uiRoot, 'config', 'docker.yaml'),
    fs.existsSync(bin.uiTemplate)
      ? renderDockerizeTemplate(fs.readFileSync(bin.uiTemplate, 'utf8'), ui.env)
      : fs.readFileSync(bin.uiConfig, 'utf8'),
  );

  let interrupted = false;
  const onSignal = (signal: string) => {
    if (interrupted) return;
    interrupted = true;
    say(`${signal}: stopping every process it started`);
    void stopAll().then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  writeState({
    ready: false,
    apiUrls: plan.apiUrls,
    uiUrl: plan.uiUrl,
    temporalAddress: plan.temporalAddress,
    databases: plan.databases,
    roles: plan.roles,
    versions: plan.versions,
    logDir,
  });

  say(
    `Temporal ${versions.server}, UI ${versions.ui}; databases ${plan.databases.app}, ${plan.databases.temporal}, ${plan.databases.visibility}; logs in ${path.relative(process.cwd(), logDir) || '.'}`,
  );
  await ensureDatabase(settings.DATABASE_URL, plan.databases.app);
  await ensureRoles(settings.DATABASE_URL, plan.databases.app, plan.roles, secrets.DATABASE_ROLE_PASSWORD);
  for (const step of plan.steps) {
    if (interrupted) return;
    if (step.kind === 'once') await runOnce(step);
    else {
      say(`${step.name}: ${[path.basename(step.command), ...step.args].join(' ')}`);
      start(step);
      writeState();
      // As compose's depends_on: the server healthy before the registration job; the rest in parallel.
      if (step.service === 'temporal') await healthy(step, 120_000);
    }
  }
  await Promise.all(plan.steps.filter((s) => s.kind === 'service').map((s) => healthy(s, 120_000)));
  if (interrupted) return;
  writeState({ ready: true });
  say('ready');
  process.stdout.write(
    [
      '',
      ...plan.apiUrls.map((url, i) => `  API ${i + 1}        ${url}/api/v1   (readiness: ${url}/readyz)`),
      `  Temporal UI  ${plan.uiUrl}`,
      `  Temporal     ${plan.temporalAddress}   (temporal workflow list --address ${plan.temporalAddress})`,
      `  Accounts     DATABASE_URL=${settings.DATABASE_URL.replace(/\/\/([^:@/]*):[^@]*@/, '//$1:***@')} npm run admin -- create-account --email E --password P`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch(async (err) => {
  process.stderr.write(`stack:cluster: ${(err as Error).message}\n`);
  await stopAll();
  process.exit(1);
});
