/**
 * One source for versions and settings: what `npm run stack:cluster` runs (plan.ts, and the
 * binaries temporal-binaries.sh builds) agrees with docker-compose.yml: the Temporal and UI releases,
 * the search attributes, the commands, and every environment variable compose sets, except the listed
 * local differences (host names and credentials of this machine). No process is started here.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, stackPorts } from '../../src/platform/config';
import { SEARCH_ATTRIBUTE_TYPES } from '../../src/platform/searchAttributes.rules';
import { binaryDirs } from './binaries';
import { ROOT, argv, composeEnvironment, composeVersions, interpolate, mountedScript, readCompose } from './compose';
import { LOCAL_DIFFERENCES, internalPortCount, planCluster, readSettings, stackRoles, type Plan, type Step } from './plan';

const services = readCompose();
const secrets = {
  SERVICE_JWT_SECRET: 'j'.repeat(48),
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  AUDIT_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
  DATABASE_ROLE_PASSWORD: 'ab12',
};
const ports = (() => {
  const list = Array.from({ length: internalPortCount(services) }, (_, i) => 41000 + i);
  const [frontendHttp, frontendMembership, history, historyMembership, matching, matchingMembership, worker, workerMembership, ...metrics] =
    list;
  return { frontendHttp, frontendMembership, history, historyMembership, matching, matchingMembership, worker, workerMembership, metrics };
})();
const plan = (env: Record<string, string> = {}): Plan =>
  planCluster({ settings: readSettings(env), ports, secrets, env, compose: services });
const defaults = plan();
const steps = (p: Plan, service: string): Step[] => p.steps.filter((s) => s.service === service);
const one = (p: Plan, service: string): Step => {
  const found = steps(p, service);
  expect(found, service).toHaveLength(1);
  return found[0];
};

/** Compose's value of each variable, for an operator who set only the required ones. */
const REQUIRED = {
  SERVICE_JWT_SECRET: secrets.SERVICE_JWT_SECRET,
  WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY,
  AUDIT_SIGNING_KEY: secrets.AUDIT_SIGNING_KEY,
  POSTGRES_PASSWORD: 'p',
  TEMPORAL_DB_PASSWORD: 't',
  PAYMENTS_DB_PASSWORD: 'a',
  PAYMENTS_API_DB_PASSWORD: 'w',
  PAYMENTS_WORKER_DB_PASSWORD: 'v',
};
const composeValues = (service: string) =>
  Object.fromEntries(Object.entries(composeEnvironment(services[service])).map(([k, v]) => [k, interpolate(v, REQUIRED)]));

describe('stack:cluster and docker-compose.yml: versions', () => {
  it('runs the Temporal server and UI releases the compose images pin', () => {
    const server = services.temporal.image!.split(':')[1];
    const ui = services['temporal-ui'].image!.split(':')[1];
    expect(defaults.versions).toEqual({ server: `v${server}`, ui: `v${ui}` });
    expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${server}`);
    const bin = binaryDirs(defaults.versions);
    expect(one(defaults, 'temporal').command).toBe(bin.temporalServer);
    expect(bin.temporalServer).toContain(`temporal-server-v${server}`);
    expect(one(defaults, 'temporal-ui').command).toBe(bin.uiServer);
    expect(bin.uiServer).toContain(`temporal-ui-server-v${ui}`);
  });

  it('builds those releases: temporal-binaries.sh reads the same tags from the compose file', () => {
    const out = spawnSync('bash', [path.join(__dirname, 'temporal-binaries.sh'), '--versions'], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim().split('\n')).toEqual([`SERVER_VERSION=${defaults.versions.server}`, `UI_VERSION=${defaults.versions.ui}`]);
  });

  it('(the version check itself refuses admin-tools of another release than the server)', () => {
    const broken = { ...services, 'temporal-schema': { ...services['temporal-schema'], image: 'temporalio/admin-tools:1.29.0' } };
    expect(() => composeVersions(broken)).toThrow(/admin-tools/);
  });
});

describe('stack:cluster and docker-compose.yml: commands', () => {
  it('runs compose’s one-shot scripts with compose’s arguments, and registers the search attributes the code sets', () => {
    for (const service of ['temporal-schema', 'temporal-search-attributes']) {
      const step = one(defaults, service);
      expect(step.kind).toBe('once');
      expect(step.command).toBe('/bin/sh');
      expect(path.resolve(ROOT, step.args[0])).toBe(mountedScript(services[service]));
      expect(step.args.slice(1)).toEqual(argv(services[service].command));
    }
    const args = one(defaults, 'temporal-search-attributes').args.slice(1);
    const registered: Record<string, string> = {};
    for (let i = 0; i < args.length; i += 4) registered[args[i + 1]] = args[i + 3];
    expect(registered).toEqual(SEARCH_ATTRIBUTE_TYPES);
  });

  it('runs migrate, the APIs and the workers with the compose commands (the image’s), two APIs and compose’s worker replicas', () => {
    for (const service of ['migrate', 'api', 'worker']) {
      for (const step of steps(defaults, service)) {
        const expected = argv(services[service].command);
        expect([expected[0] === 'node' ? process.execPath : expected[0], ...expected.slice(1)], step.name).toEqual([
          step.command,
          ...step.args,
        ]);
      }
    }
    expect(steps(defaults, 'api')).toHaveLength(2);
    expect(steps(defaults, 'worker')).toHaveLength(services.worker.deploy!.replicas!);
    // The image's build step before the workers start: the production workflow bundle.
    const names = defaults.steps.map((s) => s.name);
    expect(names.indexOf('build:workflows')).toBeLessThan(names.indexOf('worker-1'));
    expect(names.indexOf('migrate')).toBeLessThan(names.indexOf('api-1'));
    expect(names.indexOf('temporal-search-attributes')).toBeLessThan(names.indexOf('api-1'));
    expect(names.indexOf('temporal-schema')).toBeLessThan(names.indexOf('temporal'));
  });

  it('starts the server as the image does (`temporal-server start` on its embedded template) with compose’s dynamic config file', () => {
    const step = one(defaults, 'temporal');
    expect(step.args).toEqual(['start']);
    expect(step.env.DYNAMIC_CONFIG_FILE_PATH).toBe(path.join(ROOT, 'deploy/temporal/dynamicconfig/production.yaml'));
    expect(fs.existsSync(step.env.DYNAMIC_CONFIG_FILE_PATH)).toBe(true);
  });
});

describe('stack:cluster and docker-compose.yml: environment', () => {
  const byService: [string, Step[]][] = [
    'temporal-schema',
    'temporal',
    'temporal-search-attributes',
    'temporal-ui',
    'migrate',
    'api',
    'worker',
  ].map((s) => [s, steps(defaults, s)]);

  it('sets every variable compose sets, to compose’s value, but for the listed local differences', () => {
    for (const [service, list] of byService) {
      const allowed = LOCAL_DIFFERENCES[['migrate', 'api', 'worker'].includes(service) ? 'app' : service] ?? {};
      for (const step of list) {
        for (const [name, value] of Object.entries(composeValues(service))) {
          expect(step.env, `${step.name} sets ${name}`).toHaveProperty(name);
          if (!(name in allowed)) expect(step.env[name], `${step.name}: ${name}`).toBe(value);
        }
      }
    }
  });

  it('lists as local differences only variables compose really sets', () => {
    for (const [key, names] of Object.entries(LOCAL_DIFFERENCES)) {
      const env = composeValues(key === 'app' ? 'api' : key);
      for (const name of Object.keys(names)) expect(env, `${key}: ${name}`).toHaveProperty(name);
    }
  });

  it('gives the app the production configuration compose gives it, with its own secrets and metrics ports', () => {
    const app = [...steps(defaults, 'migrate'), ...steps(defaults, 'api'), ...steps(defaults, 'worker')];
    for (const step of app) {
      expect(step.env.NODE_ENV).toBe('production');
      expect(step.env.SERVICE_JWT_SECRET.length).toBeGreaterThanOrEqual(32);
      expect(Buffer.from(step.env.WEBHOOK_SECRET_KEY, 'base64')).toHaveLength(32);
      if (step.service === 'worker') expect(loadConfig(step.env).AUDIT_SIGNING_KEY).toBeDefined();
      else expect(step.env.AUDIT_SIGNING_KEY, step.name).toBeUndefined();
      expect(step.env.WEBHOOK_ALLOW_LOOPBACK).toBe('true');
      const config = loadConfig(step.env);
      expect(config.TEMPORAL_ADDRESS).toBe('127.0.0.1:7233');
      // As compose: migrate as the tables' owner (DATABASE_URL's role), granting the stack's two roles, which api and workers connect as.
      const role = { migrate: '', api: 'payments_api:ab12@', worker: 'payments_worker:ab12@' }[step.service];
      expect(config.DATABASE_URL, step.name).toBe(`postgres://${role}127.0.0.1:5432/payments`);
      expect([config.DATABASE_API_ROLE, config.DATABASE_WORKER_ROLE]).toEqual(['payments_api', 'payments_worker']);
    }
    const running = [...steps(defaults, 'api'), ...steps(defaults, 'worker')];
    const metrics = running.flatMap((s) => [s.env.API_METRICS_PORT, s.env.WORKER_METRICS_PORT]);
    expect(new Set(metrics).size).toBe(metrics.length);
  });

  it('tells every app process each port the plan listens on, so that no webhook targets one', () => {
    const listened = [
      ...steps(defaults, 'api').map((s) => Number(s.env.PORT)),
      ...[...steps(defaults, 'api'), ...steps(defaults, 'worker')].flatMap((s) =>
        [s.env.API_METRICS_PORT, s.env.WORKER_METRICS_PORT].map(Number),
      ),
      ...Object.entries(steps(defaults, 'temporal')[0].env)
        .filter(([name]) => name.endsWith('_PORT'))
        .map(([, value]) => Number(value)),
      Number(steps(defaults, 'temporal-ui')[0].env.TEMPORAL_UI_PORT),
    ];
    expect(listened.length).toBeGreaterThan(12);
    for (const step of [...steps(defaults, 'api'), ...steps(defaults, 'worker')]) {
      const known = stackPorts(loadConfig(step.env));
      for (const port of listened) expect(known.has(port), `${step.name}: ${port}`).toBe(true);
    }
  });
});

describe('stack:cluster settings', () => {
  it('defaults to the ports compose publishes: API 3000, Temporal 7233, UI 8080', () => {
    const published = (service: string) => services[service].ports!.map(String).map((p) => p.split(':').at(-1));
    expect(published('api')).toContain(String(readSettings({}).PORT));
    expect(published('temporal')).toContain(String(readSettings({}).TEMPORAL_PORT));
    expect(published('temporal-ui')).toContain(String(readSettings({}).TEMPORAL_UI_PORT));
    expect(defaults.apiUrls).toEqual(['http://127.0.0.1:3000', 'http://127.0.0.1:3001']);
    expect(defaults.uiUrl).toBe('http://127.0.0.1:8080');
  });

  it('passes PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT and DATABASE_URL to every process that uses them', () => {
    const p = plan({
      PORT: '4100',
      TEMPORAL_PORT: '17233',
      TEMPORAL_UI_PORT: '18080',
      DATABASE_URL: 'postgres://u:pw@127.0.0.1:5433/shop',
    });
    expect(steps(p, 'api').map((s) => s.env.PORT)).toEqual(['4100', '4101']);
    expect(p.apiUrls).toEqual(['http://127.0.0.1:4100', 'http://127.0.0.1:4101']);
    expect(one(p, 'temporal').env.FRONTEND_GRPC_PORT).toBe('17233');
    for (const service of ['temporal-search-attributes', 'temporal-ui', 'migrate', 'api', 'worker']) {
      for (const step of steps(p, service)) expect(step.env.TEMPORAL_ADDRESS, step.name).toBe('127.0.0.1:17233');
    }
    expect(one(p, 'temporal-ui').env.TEMPORAL_UI_PORT).toBe('18080');
    expect(one(p, 'migrate').env.DATABASE_URL).toBe('postgres://u:pw@127.0.0.1:5433/shop');
    for (const step of steps(p, 'api')) expect(step.env.DATABASE_URL).toBe('postgres://shop_api:ab12@127.0.0.1:5433/shop');
    for (const step of steps(p, 'worker')) expect(step.env.DATABASE_URL).toBe('postgres://shop_worker:ab12@127.0.0.1:5433/shop');
    expect(p.databases).toEqual({ app: 'shop', temporal: 'shop_temporal', visibility: 'shop_temporal_visibility' });
    expect(p.roles).toEqual({ api: 'shop_api', worker: 'shop_worker' });
    for (const service of ['temporal-schema', 'temporal']) {
      const env = one(p, service).env;
      expect([env.POSTGRES_SEEDS, env.DB_PORT, env.POSTGRES_USER, env.DBNAME, env.VISIBILITY_DBNAME]).toEqual([
        '127.0.0.1',
        '5433',
        'u',
        'shop_temporal',
        'shop_temporal_visibility',
      ]);
    }
    expect(one(p, 'temporal-schema').env.SQL_PASSWORD).toBe('pw');
    expect(one(p, 'temporal').env.POSTGRES_PWD).toBe('pw');
  });

  it('names the stack’s two roles after its database, as role names the app accepts', () => {
    expect(stackRoles('payments')).toEqual({ api: 'payments_api', worker: 'payments_worker' });
    expect(stackRoles('Test-DB.1')).toEqual({ api: 'test_db_1_api', worker: 'test_db_1_worker' });
    expect(stackRoles('9lives')).toEqual({ api: '_9lives_api', worker: '_9lives_worker' });
    const long = stackRoles('x'.repeat(80));
    expect([long.api.length, long.worker.length]).toEqual([54, 57]);
    for (const role of [long.api, long.worker, stackRoles('9lives').api])
      expect(loadConfig({ DATABASE_API_ROLE: role }).DATABASE_API_ROLE).toBe(role);
  });

  it('takes compose’s optional settings from the environment, as compose interpolates them', () => {
    const p = plan({ WEBHOOK_TIMEOUT: '2s', TEMPORAL_NAMESPACE: 'shop' });
    for (const step of steps(p, 'worker')) expect(step.env.WEBHOOK_TIMEOUT).toBe('2s');
    expect(one(p, 'temporal-search-attributes').env.TEMPORAL_NAMESPACE).toBe('shop');
    expect(one(p, 'temporal-ui').env.TEMPORAL_DEFAULT_NAMESPACE).toBe('shop');
  });

  it('refuses a port that is not one', () => {
    expect(() => readSettings({ PORT: 'http' })).toThrow(/PORT/);
  });
});
