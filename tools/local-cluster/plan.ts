/**
 * What `npm run stack:cluster` runs: docker-compose.yml's topology as plain processes on one machine.
 * This module only plans (pure, apart from reading docker-compose.yml); stack-cluster.ts runs
 * the plan, and plan.test.ts compares it with the compose file.
 *
 * The compose file is the one source of the versions, the search attributes and the commands: they are
 * read from it here. The environment of each process is the compose service's, with the host names
 * replaced by this machine's addresses (the differences are listed in LOCAL_DIFFERENCES).
 */
import os from 'node:os';
import path from 'node:path';
import { ephemeralPortRange } from '../../src/platform/lib/net';
import { binaryDirs } from './binaries';
import {
  ROOT,
  argv,
  composeEnvironment,
  composeVersions,
  interpolate,
  mountedScript,
  readCompose,
  type ComposeService,
  type Versions,
} from './compose';

export interface Settings {
  PORT: number;
  TEMPORAL_PORT: number;
  TEMPORAL_UI_PORT: number;
  DATABASE_URL: string;
  /** Bind address of the APIs (compose publishes them on API_BIND; here loopback by default). */
  HOST: string;
}

export const DEFAULT_DATABASE_URL = 'postgres://127.0.0.1:5432/payments';

export function readSettings(env: NodeJS.ProcessEnv): Settings {
  const num = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number, not "${raw}"`);
    return n;
  };
  return {
    PORT: num('PORT', 3000),
    TEMPORAL_PORT: num('TEMPORAL_PORT', 7233),
    TEMPORAL_UI_PORT: num('TEMPORAL_UI_PORT', 8080),
    DATABASE_URL: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    HOST: env.HOST || '127.0.0.1',
  };
}

/** Ports compose never publishes (Temporal's internal services, the metrics listeners): chosen free at start. */
export interface InternalPorts {
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  /** Two per app process (API_METRICS_PORT, WORKER_METRICS_PORT), all distinct: APIs first, then workers. */
  metrics: number[];
}

/** How many internal ports `planCluster` needs for a compose file's topology. */
export function internalPortCount(services = readCompose()): number {
  return 8 + 2 * (API_REPLICAS + (services.worker.deploy?.replicas ?? 1));
}

/** Two API processes (PORT and PORT+1), where compose runs one behind its published port. */
export const API_REPLICAS = 2;

/** Per-stack secrets (kept under the data directory, so tokens and stored webhook secrets survive a restart). */
export interface Secrets {
  SERVICE_JWT_SECRET: string;
  WEBHOOK_SECRET_KEY: string;
  /** Ed25519 seed (base64) signing the custody trail's tree heads. */
  AUDIT_SIGNING_KEY: string;
  /** The password of the stack's API and worker database roles (compose: PAYMENTS_API_DB_PASSWORD, PAYMENTS_WORKER_DB_PASSWORD). */
  DATABASE_ROLE_PASSWORD: string;
}

/**
 * The stack's API and worker database roles: compose's payments_api and payments_worker, named after
 * the stack's database here, since roles belong to the whole server and several stacks share one.
 */
export function stackRoles(appDb: string): { api: string; worker: string } {
  const base = appDb
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/^(?=[0-9])/, '_')
    .slice(0, 50);
  return { api: `${base}_api`, worker: `${base}_worker` };
}

export interface Step {
  /** The compose service this step stands for. */
  service: string;
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** One-shot (run to completion before the next step) or long-running (restarted when it dies, as `restart: unless-stopped`). */
  kind: 'once' | 'service';
  /** How to tell the service is up (compose's healthcheck). */
  health?: { tcp: number } | { http: string };
  /** SIGTERM, then SIGKILL after this long (compose's stop_grace_period; 10 s by default). */
  stopGraceMs: number;
}

/**
 * Differences from the compose file, each for a reason (plan.test.ts allows exactly these):
 * service → variable → why.
 */
export const LOCAL_DIFFERENCES: Record<string, Record<string, string>> = {
  'temporal-schema': {
    POSTGRES_SEEDS: 'the host of DATABASE_URL, not the compose service name',
    DB_PORT: 'the port of DATABASE_URL',
    POSTGRES_USER: 'the user of DATABASE_URL (compose: role temporal)',
    SQL_PASSWORD: 'the password of DATABASE_URL (empty under trust authentication)',
  },
  temporal: {
    DB_PORT: 'the port of DATABASE_URL',
    POSTGRES_SEEDS: 'the host of DATABASE_URL, not the compose service name',
    POSTGRES_USER: 'the user of DATABASE_URL (compose: role temporal)',
    POSTGRES_PWD: 'the password of DATABASE_URL',
    BIND_ON_IP: 'loopback: on a shared machine, as compose publishes 7233 on 127.0.0.1 only',
    DYNAMIC_CONFIG_FILE_PATH: 'the same file, by its path in the repository instead of the container mount',
  },
  'temporal-search-attributes': {
    TEMPORAL_ADDRESS: '127.0.0.1:TEMPORAL_PORT instead of the compose service name',
  },
  'temporal-ui': {
    TEMPORAL_ADDRESS: '127.0.0.1:TEMPORAL_PORT instead of the compose service name',
  },
  app: {
    API_METRICS_PORT: 'one free port per process: two APIs share this machine, where compose gives each container its own',
    DATABASE_URL:
      'DATABASE_URL itself for migrate (the tables’ owner, as compose’s payments), and its server and database as the stack’s own roles for api and workers (stackRoles), not the compose postgresql service',
    DATABASE_API_ROLE:
      'the stack’s own role (stackRoles: <database>_api): roles belong to the whole server, which several stacks may share',
    DATABASE_WORKER_ROLE: 'the stack’s own role (stackRoles: <database>_worker), as DATABASE_API_ROLE',
    TEMPORAL_ADDRESS: '127.0.0.1:TEMPORAL_PORT instead of the compose service name',
    PAYOUT_OUTBOX_DIR: 'a folder of the stack’s own data directory, where compose mounts the payout-outbox volume',
    BANK_INBOX_DIR: 'a folder of the stack’s own data directory, where compose mounts the bank-inbox volume',
  },
};

export interface Plan {
  versions: Versions;
  databases: { app: string; temporal: string; visibility: string };
  /** The database roles api and workers connect as (stack-cluster.ts creates them; migrate grants them). */
  roles: { api: string; worker: string };
  apiUrls: string[];
  uiUrl: string;
  temporalAddress: string;
  steps: Step[];
}

/** Every port the plan's processes listen on: the APIs, Temporal's services and UI, every metrics listener, PostgreSQL. */
function clusterPorts(settings: Settings, ports: InternalPorts, databasePort: number): number[] {
  const { metrics, ...temporal } = ports;
  const apis = Array.from({ length: API_REPLICAS }, (_, i) => settings.PORT + i);
  return [...apis, settings.TEMPORAL_PORT, settings.TEMPORAL_UI_PORT, ...Object.values(temporal), ...metrics, databasePort];
}

/** Compose's value for each variable of a service, with the operator's own settings (`env`) interpolated. */
function composeValues(service: ComposeService, env: NodeJS.ProcessEnv, required: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(composeEnvironment(service)).map(([k, v]) => [k, interpolate(v, { ...env, ...required })]));
}

export function planCluster(opts: {
  settings: Settings;
  ports: InternalPorts;
  secrets: Secrets;
  env?: NodeJS.ProcessEnv;
  compose?: Record<string, ComposeService>;
  root?: string;
  nodePath?: string;
  uiRoot?: string;
  /** The stack's own folder (stack-cluster.ts: STACK_DATA_DIR): the payout outbox and the bank inbox live in it. */
  dataDir?: string;
}): Plan {
  const { settings, ports, secrets } = opts;
  const env = opts.env ?? {};
  const root = opts.root ?? ROOT;
  const services = opts.compose ?? readCompose();
  const versions = composeVersions(services);
  const bin = binaryDirs(versions, root);
  const node = opts.nodePath ?? process.execPath;

  const db = new URL(settings.DATABASE_URL);
  const appDb = decodeURIComponent(db.pathname.replace(/^\//, ''));
  if (!appDb) throw new Error(`DATABASE_URL names no database: ${settings.DATABASE_URL}`);
  const pg = {
    host: db.hostname || '127.0.0.1',
    port: db.port || '5432',
    user: decodeURIComponent(db.username) || process.env.PGUSER || os.userInfo().username,
    password: decodeURIComponent(db.password),
  };
  const databases = { app: appDb, temporal: `${appDb}_temporal`, visibility: `${appDb}_temporal_visibility` };
  const temporalAddress = `127.0.0.1:${settings.TEMPORAL_PORT}`;
  // Placeholders for compose's required variables: every value they reach is replaced below.
  const required = {
    SERVICE_JWT_SECRET: secrets.SERVICE_JWT_SECRET,
    WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY,
    AUDIT_SIGNING_KEY: secrets.AUDIT_SIGNING_KEY,
    POSTGRES_PASSWORD: '-',
    TEMPORAL_DB_PASSWORD: pg.password || '-',
    PAYMENTS_DB_PASSWORD: '-',
    PAYMENTS_API_DB_PASSWORD: '-',
    PAYMENTS_WORKER_DB_PASSWORD: '-',
  };
  const roles = stackRoles(appDb);
  const dataDir = opts.dataDir ?? path.join(root, '.data', 'cluster', appDb);
  // As compose: api and workers connect as their own roles, to the same server and database.
  const roleUrl = (role: string) => {
    const url = new URL(settings.DATABASE_URL);
    url.username = role;
    url.password = secrets.DATABASE_ROLE_PASSWORD;
    return url.toString();
  };
  const base = { PATH: [bin.server, bin.cliDir, process.env.PATH ?? ''].join(path.delimiter), HOME: process.env.HOME ?? root };
  const shell = (service: string) => ({
    command: '/bin/sh',
    args: [path.relative(root, mountedScript(services[service])), ...argv(services[service].command)],
  });

  const steps: Step[] = [];

  // temporal-schema (admin-tools): deploy/temporal/setup-schema.sh with temporal-sql-tool on PATH.
  steps.push({
    service: 'temporal-schema',
    name: 'temporal-schema',
    ...shell('temporal-schema'),
    env: {
      ...base,
      ...composeValues(services['temporal-schema'], env, required),
      POSTGRES_SEEDS: pg.host,
      DB_PORT: pg.port,
      POSTGRES_USER: pg.user,
      SQL_PASSWORD: pg.password,
      DBNAME: databases.temporal,
      VISIBILITY_DBNAME: databases.visibility,
      TEMPORAL_SCHEMA_DIR: bin.schema,
    },
    cwd: root,
    kind: 'once',
    stopGraceMs: 10_000,
  });

  // temporal (temporalio/server): `temporal-server start`, the image's entrypoint, on its embedded config template.
  const dynamicConfig = composeEnvironment(services.temporal).DYNAMIC_CONFIG_FILE_PATH; // relative to /etc/temporal in the image
  const dynamicConfigMount = (services.temporal.volumes ?? []).map(String).find((v) => v.includes(':/etc/temporal/config/dynamicconfig'));
  const dynamicConfigHost = dynamicConfigMount
    ? path.resolve(root, dynamicConfigMount.split(':')[0], path.relative('config/dynamicconfig', dynamicConfig))
    : '';
  steps.push({
    service: 'temporal',
    name: 'temporal',
    command: bin.temporalServer,
    args: ['start'],
    env: {
      ...base,
      ...composeValues(services.temporal, env, required),
      POSTGRES_SEEDS: pg.host,
      DB_PORT: pg.port,
      VISIBILITY_DB_PORT: pg.port,
      POSTGRES_USER: pg.user,
      POSTGRES_PWD: pg.password,
      BIND_ON_IP: '127.0.0.1',
      DYNAMIC_CONFIG_FILE_PATH: dynamicConfigHost,
      DBNAME: databases.temporal,
      VISIBILITY_DBNAME: databases.visibility,
      FRONTEND_GRPC_PORT: String(settings.TEMPORAL_PORT),
      FRONTEND_HTTP_PORT: String(ports.frontendHttp),
      FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
      HISTORY_GRPC_PORT: String(ports.history),
      HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
      MATCHING_GRPC_PORT: String(ports.matching),
      MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
      WORKER_GRPC_PORT: String(ports.worker),
      WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
      // One PostgreSQL shared with other work on this machine (max_connections 100 by default, where
      // compose raises it to 200): smaller pools than the template's 20 + 10 per service.
      SQL_MAX_CONNS: env.SQL_MAX_CONNS ?? '8',
      SQL_MAX_IDLE_CONNS: env.SQL_MAX_IDLE_CONNS ?? '4',
      SQL_VIS_MAX_CONNS: env.SQL_VIS_MAX_CONNS ?? '4',
      SQL_VIS_MAX_IDLE_CONNS: env.SQL_VIS_MAX_IDLE_CONNS ?? '2',
      LOG_LEVEL: env.TEMPORAL_LOG_LEVEL ?? 'warn',
    },
    cwd: root,
    kind: 'service',
    health: { tcp: settings.TEMPORAL_PORT },
    stopGraceMs: 10_000,
  });

  // temporal-search-attributes (admin-tools): deploy/temporal/register-search-attributes.sh with compose's arguments.
  steps.push({
    service: 'temporal-search-attributes',
    name: 'temporal-search-attributes',
    ...shell('temporal-search-attributes'),
    env: { ...base, ...composeValues(services['temporal-search-attributes'], env, required), TEMPORAL_ADDRESS: temporalAddress },
    cwd: root,
    kind: 'once',
    stopGraceMs: 10_000,
  });

  // temporal-ui (temporalio/ui): `ui-server --env docker start` on the image's config/docker.yaml, as its
  // start script runs it; stack-cluster.ts renders the image's template into <uiRoot>/config/docker.yaml.
  steps.push({
    service: 'temporal-ui',
    name: 'temporal-ui',
    command: bin.uiServer,
    args: ['--root', opts.uiRoot ?? bin.ui, '--env', 'docker', 'start'],
    env: {
      ...base,
      ...composeValues(services['temporal-ui'], env, required),
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_UI_PORT: String(settings.TEMPORAL_UI_PORT),
    },
    cwd: bin.ui,
    kind: 'service',
    health: { http: `http://127.0.0.1:${settings.TEMPORAL_UI_PORT}/api/v1/settings` },
    stopGraceMs: 10_000,
  });

  // The app image: compose's x-app environment plus the Dockerfile's ENV, then its commands.
  const dockerfileEnv = {
    NODE_ENV: 'production',
    HOST: settings.HOST,
    PORT: String(settings.PORT),
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    NPM_CONFIG_FUND: 'false',
  };
  const appEnv = {
    ...base,
    PATH: process.env.PATH ?? '',
    ...dockerfileEnv,
    ...composeValues(services.api, env, required),
    DATABASE_URL: settings.DATABASE_URL,
    DATABASE_API_ROLE: roles.api,
    DATABASE_WORKER_ROLE: roles.worker,
    TEMPORAL_ADDRESS: temporalAddress,
    PAYOUT_OUTBOX_DIR: path.join(dataDir, 'payout-outbox'),
    BANK_INBOX_DIR: path.join(dataDir, 'bank-inbox'),
    WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY,
    // Webhook receivers of this one-machine stack are on loopback (the cluster tests' receivers too).
    WEBHOOK_ALLOW_LOOPBACK: env.WEBHOOK_ALLOW_LOOPBACK ?? 'true',
    WEBHOOK_LOOPBACK_PORTS: env.WEBHOOK_LOOPBACK_PORTS ?? ephemeralPortRange(),
    // But never a port of this stack: each process's settings name its own, this the others'.
    STACK_PORTS: clusterPorts(settings, ports, Number(pg.port)).join(','),
  };
  const command = (service: string) => {
    const [cmd, ...args] = argv(services[service].command);
    return { command: cmd === 'node' ? node : cmd, args };
  };

  // migrate (one-shot), then the workflow bundle the image builds (Dockerfile: RUN npm run build:workflows).
  steps.push({ service: 'migrate', name: 'migrate', ...command('migrate'), env: appEnv, cwd: root, kind: 'once', stopGraceMs: 10_000 });
  steps.push({
    service: 'build',
    name: 'build:workflows',
    command: 'npm',
    args: ['run', 'build:workflows'],
    env: appEnv,
    cwd: root,
    kind: 'once',
    stopGraceMs: 10_000,
  });

  const apiUrls: string[] = [];
  const replicas = services.worker.deploy?.replicas ?? 1;
  if (ports.metrics.length < 2 * (API_REPLICAS + replicas)) throw new Error('not enough metrics ports');
  const metricsEnv = (k: number) => ({
    API_METRICS_PORT: String(ports.metrics[2 * k]),
    WORKER_METRICS_PORT: String(ports.metrics[2 * k + 1]),
  });
  for (let i = 0; i < API_REPLICAS; i++) {
    const port = settings.PORT + i;
    apiUrls.push(`http://127.0.0.1:${port}`);
    steps.push({
      service: 'api',
      name: `api-${i + 1}`,
      ...command('api'),
      env: { ...appEnv, DATABASE_URL: roleUrl(roles.api), PORT: String(port), ...metricsEnv(i) },
      cwd: root,
      kind: 'service',
      health: { http: `http://127.0.0.1:${port}/readyz` },
      stopGraceMs: 20_000,
    });
  }
  // What compose gives the workers beyond the app's shared environment (the custody account's settings).
  const apiCompose = composeValues(services.api, env, required);
  const workerOnly = Object.fromEntries(
    Object.entries(composeValues(services.worker, env, required)).filter(([name]) => !(name in apiCompose)),
  );
  for (let i = 0; i < replicas; i++) {
    const metrics = metricsEnv(API_REPLICAS + i);
    steps.push({
      service: 'worker',
      name: `worker-${i + 1}`,
      ...command('worker'),
      // As compose: only workers hold the tree-head signing key and the custody account's settings.
      env: { ...appEnv, ...workerOnly, DATABASE_URL: roleUrl(roles.worker), ...metrics, AUDIT_SIGNING_KEY: secrets.AUDIT_SIGNING_KEY },
      cwd: root,
      kind: 'service',
      health: { http: `http://127.0.0.1:${metrics.WORKER_METRICS_PORT}/healthz` },
      stopGraceMs: 30_000,
    });
  }

  return { versions, databases, roles, apiUrls, uiUrl: `http://127.0.0.1:${settings.TEMPORAL_UI_PORT}`, temporalAddress, steps };
}
