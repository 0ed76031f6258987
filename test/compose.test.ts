/**
 * docker-compose.yml and the Dockerfile, checked without a container engine: the file is parsed and
 * its structure compared with what the production topology needs (docs/deploy.md) and with the code
 * it runs, so that neither can drift from the other unnoticed.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/platform/config';
import { createAccount } from '../src/tenants/tenants.repository';
import { appendLeaf, sequence } from '../src/audit/trail.repository';
import { createDb } from '../src/platform/database/knex';
import { SEARCH_ATTRIBUTE_TYPES } from '../src/platform/searchAttributes.rules';
import { type ComposeService, composeEnvironment, interpolate } from '../tools/local-cluster/compose';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

type Env = Record<string, string | number | boolean | null>;
interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Env | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  ports?: (string | number | { target: number; published?: string | number })[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  deploy?: { replicas?: number };
  restart?: string;
  container_name?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/** Compose resolves YAML merge keys (`<<: *app`); so does this parse. */
const parseCompose = (text: string) => parse(text, { merge: true }) as Compose;
const compose = parseCompose(read('docker-compose.yml'));
const services = compose.services;
const dockerfile = read('Dockerfile');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

const TOPOLOGY = ['postgresql', 'temporal-schema', 'temporal', 'temporal-search-attributes', 'temporal-ui', 'migrate', 'api', 'worker'];
const APP_SERVICES = ['migrate', 'api', 'worker'];
const CONDITIONS = ['service_started', 'service_healthy', 'service_completed_successfully'];

/** Compose's environment of a service, as stack:cluster reads it. */
const environment = (service: Service) => composeEnvironment(service as ComposeService);

function dependencies(service: Service): Record<string, string> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, v?.condition ?? 'service_started']));
}

const argv = (cmd: string | string[] | undefined): string[] =>
  cmd === undefined ? [] : Array.isArray(cmd) ? cmd.map(String) : cmd.split(/\s+/).filter(Boolean);

/** Host paths of bind mounts (`./x:/y[:ro]`), mapped from the path inside the container. */
function bindMounts(service: Service): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const v of service.volumes ?? []) {
    if (typeof v === 'string') {
      const [source, target] = v.split(':');
      if (source.startsWith('.') || source.startsWith('/')) mounts.set(target, source);
    } else if (v.type === 'bind' && v.source && v.target) mounts.set(v.target, v.source);
  }
  return mounts;
}

/** Everything wrong with the depends_on graph: unknown targets, bad conditions, cycles. */
function dependencyProblems(all: Record<string, Service>): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(all)) {
    for (const [target, condition] of Object.entries(dependencies(service))) {
      const dep = all[target];
      if (!dep) {
        problems.push(`${name} depends on unknown service ${target}`);
        continue;
      }
      if (!CONDITIONS.includes(condition)) problems.push(`${name} → ${target}: unknown condition ${condition}`);
      if (condition === 'service_healthy' && (!dep.healthcheck?.test || dep.healthcheck.disable))
        problems.push(`${name} waits for ${target} to be healthy, but ${target} has no healthcheck`);
      if (condition === 'service_completed_successfully' && dep.restart && dep.restart !== 'no')
        problems.push(`${name} waits for ${target} to complete, but ${target} restarts (${dep.restart})`);
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]) => {
    if (state.get(name) === 'done' || !all[name]) return;
    if (state.get(name) === 'visiting') {
      problems.push(`dependency cycle: ${[...trail, name].join(' → ')}`);
      return;
    }
    state.set(name, 'visiting');
    for (const target of Object.keys(dependencies(all[name]))) visit(target, [...trail, name]);
    state.set(name, 'done');
  };
  for (const name of Object.keys(all)) visit(name, []);
  return problems;
}

/** `--name N --type T` pairs of the registration one-shot's command. */
function registeredSearchAttributes(service: Service): Record<string, string> {
  const args = argv(service.command);
  const names: string[] = [];
  const types: string[] = [];
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '--name') names.push(args[i + 1]);
    else if (args[i] === '--type') types.push(args[i + 1]);
    else throw new Error(`unexpected argument ${args[i]} in ${args.join(' ')}`);
  }
  expect(names.length, 'every --name has a --type').toBe(types.length);
  return Object.fromEntries(names.map((n, i) => [n, types[i]]));
}

/** What compose passes to the app when the operator set only the required variables. */
const REQUIRED = {
  SERVICE_JWT_SECRET: 'x'.repeat(48),
  WEBHOOK_SECRET_KEY: `${'k'.repeat(43)}=`,
  AUDIT_SIGNING_KEY: `${'a'.repeat(43)}=`,
  POSTGRES_PASSWORD: 'a'.repeat(32),
  TEMPORAL_DB_PASSWORD: 'b'.repeat(32),
  PAYMENTS_DB_PASSWORD: 'c'.repeat(32),
  PAYMENTS_API_DB_PASSWORD: 'd'.repeat(32),
  PAYMENTS_WORKER_DB_PASSWORD: 'e'.repeat(32),
};

describe('docker-compose.yml: services', () => {
  it('defines every service of the production topology', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(TOPOLOGY));
  });

  it('uses pinned upstream images: postgres 16, one Temporal version for server and admin-tools, the UI', () => {
    expect(services.postgresql.image).toMatch(/^postgres:16(\.\d+)?(-[a-z]+)?$/);
    const server = services.temporal.image!.match(/^temporalio\/server:(\d+\.\d+\.\d+)$/);
    expect(server, services.temporal.image).not.toBeNull();
    // The schema tool must come from the same release as the server it prepares the database for.
    for (const oneShot of ['temporal-schema', 'temporal-search-attributes'])
      expect(services[oneShot].image).toBe(`temporalio/admin-tools:${server![1]}`);
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
  });

  it('builds migrate, api and worker from the project Dockerfile, as one image', () => {
    const images = new Set<string | undefined>();
    for (const name of APP_SERVICES) {
      const { build, image } = services[name];
      const context = typeof build === 'string' ? build : build?.context;
      const file = (typeof build === 'object' && build.dockerfile) || 'Dockerfile';
      expect(context, `${name} builds`).toBeDefined();
      expect(path.resolve(ROOT, context!, file), name).toBe(path.join(ROOT, 'Dockerfile'));
      images.add(image);
    }
    expect(images.size).toBe(1);
  });

  it('mounts only deploy files that exist', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const source of bindMounts(service).values()) expect(fs.existsSync(path.resolve(ROOT, source)), `${name}: ${source}`).toBe(true);
    }
  });
});

describe('docker-compose.yml: Temporal', () => {
  it('registers exactly the search attributes the code sets, with their types', () => {
    expect(registeredSearchAttributes(services['temporal-search-attributes'])).toEqual(SEARCH_ATTRIBUTE_TYPES);
  });

  it('registers them with `temporal operator search-attribute create`, in the namespace the app uses', () => {
    const service = services['temporal-search-attributes'];
    const script = argv(service.entrypoint).find((a) => bindMounts(service).has(a));
    expect(script, 'the entrypoint runs a mounted script').toBeDefined();
    const text = read(bindMounts(service).get(script!)!);
    expect(text).toMatch(/temporal operator search-attribute create\b[^\n]*"\$@"/);
    expect(text).toMatch(/temporal operator namespace create\b/);
    expect(environment(service).TEMPORAL_NAMESPACE).toBe(environment(services.api).TEMPORAL_NAMESPACE);
    expect(environment(service).TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('prepares the Temporal schema before the server starts', () => {
    expect(dependencies(services.temporal)['temporal-schema']).toBe('service_completed_successfully');
    const service = services['temporal-schema'];
    const script = argv(service.entrypoint).find((a) => bindMounts(service).has(a));
    const text = read(bindMounts(service).get(script!)!);
    for (const step of ['create', 'setup-schema', 'update-schema']) expect(text).toContain(step);
    expect(environment(services.temporal).DB).toBe('postgres12');
    expect(environment(services.temporal).POSTGRES_SEEDS).toBe('postgresql');
  });

  it('serves Temporal on 7233 and the UI on 8080, the UI pointing at the server', () => {
    expect(services.temporal.ports?.map(String).some((p) => p.endsWith(':7233'))).toBe(true);
    expect(services['temporal-ui'].ports?.map(String).some((p) => p.endsWith(':8080'))).toBe(true);
    expect(environment(services['temporal-ui']).TEMPORAL_ADDRESS).toBe('temporal:7233');
  });
});

describe('docker-compose.yml: start order', () => {
  it('starts the API and the workers only after migration and search-attribute registration', () => {
    for (const name of ['api', 'worker']) {
      expect(dependencies(services[name]), name).toMatchObject({
        migrate: 'service_completed_successfully',
        'temporal-search-attributes': 'service_completed_successfully',
      });
    }
    expect(dependencies(services.migrate)).toMatchObject({ postgresql: 'service_healthy' });
    expect(dependencies(services['temporal-search-attributes'])).toMatchObject({ temporal: 'service_healthy' });
  });

  it('has a dependency graph with known targets and conditions, and no cycle', () => {
    expect(dependencyProblems(services)).toEqual([]);
  });

  it('(the graph check itself catches an unknown target, a missing healthcheck and a cycle)', () => {
    const broken: Record<string, Service> = {
      a: { depends_on: { ghost: { condition: 'service_started' } } },
      b: { depends_on: { c: { condition: 'service_healthy' } } },
      c: { depends_on: ['b'] },
    };
    const problems = dependencyProblems(broken).join('\n');
    expect(problems).toContain('a depends on unknown service ghost');
    expect(problems).toContain('c has no healthcheck');
    expect(problems).toContain('dependency cycle');
  });

  it('checks API readiness on /readyz and publishes port 3000', () => {
    expect(argv(services.api.healthcheck?.test).join(' ')).toContain('/readyz');
    expect(services.api.ports?.map(String).some((p) => p.endsWith(':3000'))).toBe(true);
    expect(services.postgresql.healthcheck?.test).toBeDefined();
    expect(services.temporal.healthcheck?.test).toBeDefined();
  });

  it('checks worker health on its own listener (WORKER_METRICS_PORT)', () => {
    expect(argv(services.worker.healthcheck?.test).join(' ')).toContain(`127.0.0.1:${loadConfig({}).WORKER_METRICS_PORT}/healthz`);
  });

  it('runs two workers, and nothing scaled has a fixed container name', () => {
    expect(services.worker.deploy?.replicas).toBeGreaterThanOrEqual(2);
    for (const [name, service] of Object.entries(services)) expect(service.container_name, name).toBeUndefined();
  });
});

describe('docker-compose.yml: configuration', () => {
  const appEnv = (name: string, env: Record<string, string | undefined> = REQUIRED) =>
    Object.fromEntries(Object.entries(environment(services[name])).map(([k, v]) => [k, interpolate(v, env)]));

  it('takes SERVICE_JWT_SECRET and the database passwords from the environment, never from the file', () => {
    for (const name of APP_SERVICES)
      expect(environment(services[name]).SERVICE_JWT_SECRET, name).toMatch(/^\$\{SERVICE_JWT_SECRET:\?[^}]+\}$/);
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(environment(service))) {
        if (/SECRET|PASSWORD|PWD/.test(key)) expect(value, `${name}.${key}`).toMatch(/^\$\{[A-Z_]+:\?[^}]+\}$/);
      }
    }
    expect(() => appEnv('api', {})).toThrow(/SERVICE_JWT_SECRET|PASSWORD/);
  });

  it('gives migrate, api and worker a configuration the app accepts in production', () => {
    for (const name of APP_SERVICES) {
      const env = appEnv(name);
      expect(env.NODE_ENV).toBe('production');
      const config = loadConfig(env);
      expect(new URL(config.DATABASE_URL!).hostname).toBe('postgresql');
      expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
    }
    // The same configuration, but the tree-head signing key is the workers' alone (and each its
    // database role). The custody account is both's: the worker debits payouts from it, the API
    // tells a payer funding by bank transfer to pay into it (docs/bank.md).
    const { AUDIT_SIGNING_KEY: signingKey, DATABASE_URL: _w, ...workerRest } = appEnv('worker');
    const { DATABASE_URL: _a, ...apiRest } = appEnv('api');
    expect(signingKey).toBe(REQUIRED.AUDIT_SIGNING_KEY);
    expect(apiRest).toEqual(workerRest);
    expect(appEnv('api')).not.toHaveProperty('AUDIT_SIGNING_KEY');
    expect(appEnv('migrate')).not.toHaveProperty('AUDIT_SIGNING_KEY');
    expect(appEnv('api')).toHaveProperty('CUSTODY_ACCOUNT_IBAN');
    // The bank channel's directories: the workers' volumes, not the image's root-owned /app.
    const worker = services.worker as { volumes?: unknown[] };
    expect(worker.volumes).toEqual(
      expect.arrayContaining(['payout-outbox:/var/lib/payments/outbox', 'bank-inbox:/var/lib/payments/inbox']),
    );
    expect(appEnv('worker')).toMatchObject({ PAYOUT_OUTBOX_DIR: '/var/lib/payments/outbox', BANK_INBOX_DIR: '/var/lib/payments/inbox' });
  });

  it('names only settings the app reads, with the app’s own defaults', () => {
    const known = Object.keys(
      loadConfig({
        DATABASE_URL: 'postgres://h/db',
        TEMPORAL_ADDRESS: 'h:7233',
        SERVICE_JWT_SECRET: 'x'.repeat(32),
        WEBHOOK_SECRET_KEY: `${'k'.repeat(43)}=`,
        AUDIT_SIGNING_KEY: `${'a'.repeat(43)}=`,
        DATABASE_API_ROLE: 'api',
        DATABASE_WORKER_ROLE: 'worker',
        // Optional settings without a default are keys of the configuration only when set.
        CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
        CUSTODY_ACCOUNT_IBAN: 'DE89370400440532013000',
        CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
        CUSTODY_ACCOUNT_INITIATOR_ID: 'DE98ZZZ09999999999',
      }),
    );
    const defaults = loadConfig({}) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(environment(services.api))) {
      expect(known, `api sets ${key}`).toContain(key);
      const fallback = value.match(/^\$\{([A-Z_]+):-([^}]*)\}$/);
      if (fallback && fallback[1] === key && key in defaults) {
        const withFallback = loadConfig({ [key]: fallback[2] }) as unknown as Record<string, unknown>;
        expect(withFallback[key], `default of ${key}`).toEqual(defaults[key]);
      }
    }
  });
});

describe('Dockerfile', () => {
  /** Command lines of RUN instructions and the exec-form CMD/ENTRYPOINT of the image, plus compose commands. */
  const commands = (): string[][] => {
    const lines = dockerfile.replace(/\\\n/g, ' ').split('\n');
    const out: string[][] = [];
    for (const line of lines) {
      const run = line.match(/^RUN\s+(.*)$/);
      if (run) out.push(...run[1].split(/&&|;/).map((c) => c.trim().split(/\s+/)));
      const exec = line.match(/^(?:CMD|ENTRYPOINT)\s+(\[.*\])\s*$/);
      if (exec) out.push(JSON.parse(exec[1]) as string[]);
    }
    for (const name of APP_SERVICES) out.push(argv(services[name].command));
    return out;
  };

  it('runs only npm scripts that exist, and entry files that exist', () => {
    const scripts = commands()
      .filter((c) => c[0] === 'npm' && c[1] === 'run')
      .map((c) => c[2]);
    expect(scripts).toEqual(expect.arrayContaining(['build:workflows', 'migrate']));
    for (const script of scripts) {
      expect(pkg.scripts[script], `npm run ${script}`).toBeDefined();
      const target = pkg.scripts[script].match(/^tsx (\S+\.ts)$/);
      if (target) expect(fs.existsSync(path.join(ROOT, target[1])), pkg.scripts[script]).toBe(true);
    }
    const tsxEntries = commands()
      .filter((c) => c[0] === 'node' && c.includes('tsx'))
      .map((c) => c[c.length - 1]);
    expect(tsxEntries).toEqual(expect.arrayContaining(['src/bin/api.ts', 'src/bin/worker.ts']));
    for (const entry of tsxEntries) expect(fs.existsSync(path.join(ROOT, entry)), entry).toBe(true);
    // The entry points the compose services run are the ones package.json names.
    expect(pkg.scripts.api).toBe('tsx src/bin/api.ts');
    expect(pkg.scripts.worker).toBe('tsx src/bin/worker.ts');
  });

  it('starts from node 20 bookworm-slim, installs with npm ci and bundles the workflows at build time', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build:workflows$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
  });

  it('runs as a non-root user, with signals reaching node (tini, exec-form CMD)', () => {
    const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
    expect(users.at(-1)).toBeDefined();
    expect(['root', '0']).not.toContain(users.at(-1));
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "--import", "tsx", "src\/bin\/api\.ts"\]$/m);
  });

  it('.dockerignore keeps local state, git and secrets out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', '.cache', '.data', 'test-output', '.git', '.env']) expect(ignored, entry).toContain(entry);
  });
});

describe('docker-compose.yml: database roles', () => {
  const envOf = (name: string) =>
    Object.fromEntries(Object.entries(environment(services[name])).map(([k, v]) => [k, interpolate(v, REQUIRED)]));

  it('runs the api as payments_api, the workers as payments_worker, and only migrate as the tables’ owner, granting those two', () => {
    expect(new URL(envOf('api').DATABASE_URL).username).toBe('payments_api');
    expect(new URL(envOf('worker').DATABASE_URL).username).toBe('payments_worker');
    expect(new URL(envOf('migrate').DATABASE_URL).username).toBe('payments');
    expect([envOf('migrate').DATABASE_API_ROLE, envOf('migrate').DATABASE_WORKER_ROLE]).toEqual(['payments_api', 'payments_worker']);
    const { DATABASE_URL: _a, ...api } = envOf('api');
    const { DATABASE_URL: _m, ...migrate } = envOf('migrate');
    expect(migrate).toEqual(api);
  });

  it('the init script’s roles and migrate’s grants: both write rows, neither can TRUNCATE nor switch off the trail’s triggers, and the api’s cannot write the trail, a payment’s row nor the ledger', async () => {
    const s = randomBytes(4).toString('hex');
    const names = {
      TEMPORAL_ROLE: `t_${s}`,
      PAYMENTS_ROLE: `o_${s}`,
      PAYMENTS_API_ROLE: `a_${s}`,
      PAYMENTS_WORKER_ROLE: `w_${s}`,
      PAYMENTS_DB: `payments_${s}`,
    };
    const server = new URL(inject('databaseUrl'));
    const superuser = server.username || process.env.PGUSER || os.userInfo().username;
    const admin = createDb(inject('databaseUrl'));
    const urlAs = (role: string) => `postgres://${role}@${server.host}/${names.PAYMENTS_DB}`;
    let worker: Knex | undefined;
    let api: Knex | undefined;
    try {
      await promisify(execFile)('sh', [path.join(ROOT, 'deploy/postgres/init/10-roles-and-databases.sh')], {
        env: {
          ...process.env,
          ...names,
          POSTGRES_USER: superuser,
          PGHOST: server.hostname,
          PGPORT: server.port || '5432',
          TEMPORAL_DB_PASSWORD: 't',
          PAYMENTS_DB_PASSWORD: 'o',
          PAYMENTS_API_DB_PASSWORD: 'a',
          PAYMENTS_WORKER_DB_PASSWORD: 'w',
        },
      });
      // Compose's migrate command as compose runs it: as the owner, naming the roles to grant.
      await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: urlAs(names.PAYMENTS_ROLE),
          DATABASE_API_ROLE: names.PAYMENTS_API_ROLE,
          DATABASE_WORKER_ROLE: names.PAYMENTS_WORKER_ROLE,
        },
      });
      worker = createDb(urlAs(names.PAYMENTS_WORKER_ROLE));
      api = createDb(urlAs(names.PAYMENTS_API_ROLE));
      const leaf = {
        entryKey: `roles:${s}`,
        kind: 'payment.transition',
        paymentId: null,
        accountId: null,
        livemode: null,
        leaf: '{"kind":"payment.transition"}',
      } as const;
      // The api: rows of the read model, but never a leaf, a node, a head or a key (PostgreSQL refuses them).
      await createAccount(api, `roles-${s}@example.com`, 'a-long-enough-password');
      await expect(appendLeaf(api, leaf)).rejects.toThrow(/permission denied for table audit_leaves/);
      await expect(api('audit_signing_keys').insert({ public_key: Buffer.alloc(32, 1) })).rejects.toThrow(
        /permission denied for table audit_signing_keys/,
      );
      await expect(api('audit_tree_heads').del()).rejects.toThrow(/permission denied for table audit_tree_heads/);
      await expect(api.raw('INSERT INTO audit_nodes (level, index, hash) VALUES (0, 0, ?)', [Buffer.alloc(32)])).rejects.toThrow(
        /permission denied for table audit_nodes/,
      );
      // It reads what it serves: proofs and the public key (the signing key is never in the database).
      expect(await api('audit_signing_keys').select('public_key')).toEqual([]);
      // Money it reads but never writes: a payment's row is its workflow's (docs/architecture.md,
      // "One writer per aggregate"); an erasure overwrites only its personal columns.
      await expect(api('payments').insert({ id: `pay_${s}` })).rejects.toThrow(/permission denied for table payments/);
      await expect(api('payments').update({ status: 'released', version: 99 })).rejects.toThrow(/permission denied for table payments/);
      await expect(api('payments').del()).rejects.toThrow(/permission denied for table payments/);
      await api.transaction(async (tx) => {
        expect(
          await tx('payments')
            .where({ id: `pay_${s}` })
            .forUpdate()
            .first(),
        ).toBeUndefined();
        expect(
          await tx('payments')
            .where({ id: `pay_${s}` })
            .update({ payer_email: '[redacted]', metadata: '{}' }),
        ).toBe(0);
      });
      expect(await api('payments').select('id')).toEqual([]);
      // Nor the ledger: a payout's creation and a recipient's make_available are workers' steps too.
      await expect(
        api('ledger_postings').insert({ entry_id: `le_${s}`, ledger_account: 'recipient_available', address: `r_${s}`, amount_minor: '1' }),
      ).rejects.toThrow(/permission denied for table ledger_postings/);
      await expect(api('ledger_entries').del()).rejects.toThrow(/permission denied for table ledger_entries/);
      await expect(api('ledger_account_balances').update({ balance_minor: '0' })).rejects.toThrow(
        /permission denied for table ledger_account_balances/,
      );
      expect(await api('ledger_postings').select('entry_id')).toEqual([]);
      // The workers: the trail's only writers.
      await appendLeaf(worker, leaf);
      expect(await sequence(worker)).toBe(1);
      await worker('audit_signing_keys').insert({ public_key: Buffer.alloc(32, 1) });
      await expect(api('audit_leaves').where({ entry_key: leaf.entryKey }).update({ leaf_index: 7 })).rejects.toThrow(/permission denied/);
      // Neither: TRUNCATE, switching triggers off (owner only), or replica mode (superuser only).
      for (const role of [worker, api]) {
        await expect(role.raw('TRUNCATE audit_leaves')).rejects.toThrow(/permission denied/);
        await expect(role.raw('TRUNCATE payments')).rejects.toThrow(/permission denied/);
        await expect(role.raw('ALTER TABLE audit_leaves DISABLE TRIGGER USER')).rejects.toThrow(/must be owner/);
        await expect(role.raw('SET session_replication_role = replica')).rejects.toThrow(/permission denied/);
      }
      await expect(worker('audit_leaves').del()).rejects.toThrow(/append-only/);
    } finally {
      await api?.destroy();
      await worker?.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS "${names.PAYMENTS_DB}"`);
      for (const role of [names.PAYMENTS_API_ROLE, names.PAYMENTS_WORKER_ROLE, names.PAYMENTS_ROLE, names.TEMPORAL_ROLE])
        await admin.raw(`DROP ROLE IF EXISTS "${role}"`);
      await admin.destroy();
    }
  });
});
