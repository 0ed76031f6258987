/**
 * `npm run stack:cluster` as an operator runs it: docker-compose.yml's topology without containers (a
 * Temporal server on PostgreSQL with SQL visibility, its UI server, two APIs, two workers on the production
 * workflow bundle), driven from outside through HTTP, the Temporal CLI, signals and a real browser.
 * Nothing is mocked. The databases are dropped first, so the schema setup runs from scratch every time.
 *
 * The topology is booted once, and from a fresh clone, as docs/commands.md tells a new user: no `.cache/`
 * in the project, no Temporal CLI on PATH or in TEMPORAL_CLI_PATH, nothing of `.ci/run`'s preparation. It
 * installs what it needs itself (tools/local-cluster/temporal-binaries.sh). The clone is the working
 * tree's files (tracked and new, not ignored) copied to a temporary directory, with the dependencies
 * `npm install` gave it. Binaries come from the machine-wide cache when an earlier run built them (as
 * .ci/run's does before this suite): the code path is the new user's, whose project cache is empty; only
 * Go's ten-minute build is spared.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryDirs } from '../../tools/local-cluster/binaries';
import { composeVersions } from '../../tools/local-cluster/compose';
import { startReceiver, type Received } from '../helpers/receiver';
import { eventually, httpClient, validPayment } from '../helpers/stack';
import { alive, clusterPorts, databaseUrl, freshDatabases, startCluster, type ClusterRun, type StackState } from './support';

const ROOT = path.resolve(__dirname, '../..');
const OUT = path.join(ROOT, 'test-output', 'cluster');
const STATE_FILE = path.join(OUT, 'state.json');
const CLI = process.env.TEMPORAL_CLI_PATH ?? path.join(ROOT, '.cache', 'bin', 'temporal');
const CHROMIUM = '/usr/bin/chromium';
const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-fresh-clone-'));

/** The working tree as a clone of it would be: tracked and untracked files, none that .gitignore excludes. */
function copyWorkingTree(to: string): void {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    // node_modules may be a symbolic link, which a directory pattern in .gitignore does not match.
    if (file === 'node_modules' || !fs.existsSync(path.join(ROOT, file))) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.cpSync(path.join(ROOT, file), path.join(to, file), { verbatimSymlinks: true });
  }
  // What `npm install` gives a clone (not part of .ci/run's preparation this test leaves out).
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(to, 'node_modules'));
}

/** PATH without any directory holding a `temporal`: the new user has no CLI installed. */
const pathWithoutTemporal = () =>
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !fs.existsSync(path.join(dir, 'temporal')))
    .join(path.delimiter);

let appUrl: string;
let stack: ClusterRun | undefined;
const readState = () => stack!.readState();
let state: StackState;
let key: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** `respond` of the receiver, replaceable per test. */
let respond: (r: Received) => number | 'hang' = () => 200;
let api1: ReturnType<typeof httpClient>;
let api2: ReturnType<typeof httpClient>;

function cli(...args: string[]): string {
  const res = spawnSync(CLI, [...args, '--address', state.temporalAddress, '--namespace', 'default'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`temporal ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

/** A transition as an integrator would send it: retried while the cluster answers 5xx, then checked. */
async function transition(api: ReturnType<typeof httpClient>, id: string, action: string, expected: string): Promise<void> {
  await eventually(
    async () => {
      const res = await api.post(`/api/v1/payments/${id}/${action}`, { key }).catch(() => undefined);
      if (res?.status === 200) return true;
      const now = await api.get(`/api/v1/payments/${id}`, { key }).catch(() => undefined);
      if (now?.body?.status === expected) return true;
      if (res && res.status < 500) throw new Error(`${action} ${id}: ${res.status} ${JSON.stringify(res.body)}`);
      return undefined;
    },
    120_000,
    `${action} of ${id}`,
  );
}

async function create(api: ReturnType<typeof httpClient>, over: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/api/v1/payments', { key, body: validPayment(over) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** The events the receiver got for one payment, in arrival order, once each (deliveries are at least once). */
const eventsOf = (id: string) => [
  ...new Set(
    receiver.received
      .filter((r) => r.body?.data?.id === id || r.raw.toString().includes(id))
      .map((r) => String(r.headers['x-service-event'])),
  ),
];

async function delivered(id: string, events: string[]): Promise<void> {
  await eventually(
    async () => (events.every((e) => eventsOf(id).includes(e)) ? true : undefined),
    120_000,
    `webhooks ${events.join(', ')} for ${id} (got ${eventsOf(id).join(', ')})`,
  );
}

beforeAll(async () => {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  copyWorkingTree(clone);
  ({ appUrl } = await freshDatabases('cluster'));
  receiver = await startReceiver((_n, r) => respond(r));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: pathWithoutTemporal(),
    DATABASE_URL: appUrl,
    ...(await clusterPorts()),
    STACK_DATA_DIR: OUT,
    STACK_STATE_FILE: STATE_FILE,
    // Compose's own optional settings, interpolated into the app's environment as compose would.
    WEBHOOK_TIMEOUT: '2s',
    WEBHOOK_RETRY_INITIAL_INTERVAL: '200ms',
    WEBHOOK_RETRY_MAX_INTERVAL: '1s',
    WEBHOOK_MAX_ATTEMPTS: '20',
    RATE_LIMIT_PER_SECOND: '1000',
  };
  delete env.TEMPORAL_CLI_PATH;
  expect(fs.existsSync(path.join(clone, '.cache'))).toBe(false);
  stack = await startCluster(clone, env, STATE_FILE);
  state = readState();
  [api1, api2] = state.apiUrls.map((u) => httpClient(u));
  const admin = spawnSync(
    'npm',
    [
      'run',
      '--silent',
      'admin',
      '--',
      'create-account',
      '--email',
      `cluster-${randomUUID()}@example.com`,
      '--password',
      'cluster-password',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: appUrl },
      encoding: 'utf8',
    },
  );
  expect(admin.status, admin.stderr).toBe(0);
  key = (JSON.parse(admin.stdout.trim().split('\n').at(-1)!) as { test_api_key: string }).test_api_key;
  const hook = await api1.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url } });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
}, 400_000);

afterAll(async () => {
  // Whatever a failed test left running (the last test stops the stack itself).
  await stack?.stop();
  await receiver?.close();
  fs.rmSync(clone, { recursive: true, force: true });
});

describe('npm run stack:cluster', () => {
  it('on a fresh clone, installs the Temporal binaries it needs itself', () => {
    const bin = binaryDirs(composeVersions(), clone);
    for (const file of [bin.temporalServer, bin.sqlTool, bin.uiServer, path.join(bin.cliDir, 'temporal')])
      expect(fs.existsSync(file), `${path.relative(clone, file)} installed in the clone`).toBe(true);
    expect(stack!.output()).toContain('stack:cluster: installing ');
  });

  it('runs the Temporal server and UI releases docker-compose.yml pins, with its search attributes, on PostgreSQL', async () => {
    const versions = composeVersions();
    const connection = await Connection.connect({ address: state.temporalAddress });
    const info = await connection.workflowService.getSystemInfo({});
    await connection.close();
    expect(`v${info.serverVersion}`).toBe(versions.server);
    const settings = (await (await fetch(`${state.uiUrl}/api/v1/settings`)).json()) as { Version: string };
    expect(`v${settings.Version}`).toBe(versions.ui);
    const listed = cli('operator', 'search-attribute', 'list');
    for (const name of ['PaymentStatus', 'PaymentAmount', 'PaymentCurrency', 'AccountId', 'Livemode']) expect(listed).toContain(name);
    // Temporal's state is in the two databases created next to DATABASE_URL's.
    const db = new pg.Client({
      connectionString: databaseUrl(state.databases.temporal),
    });
    await db.connect();
    const shards = await db.query('select count(*)::int as n from shards');
    await db.end();
    expect(shards.rows[0].n).toBeGreaterThan(0);
    for (const url of state.apiUrls) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(Object.keys(state.processes).sort()).toEqual(['api-1', 'api-2', 'temporal', 'temporal-ui', 'worker-1', 'worker-2']);
  });

  it('runs the APIs and the workers as database roles of their own: PostgreSQL refuses the API’s writes to the custody trail', async () => {
    // As compose's payments_api and payments_worker (docs/security.md, "Database roles").
    const { roles } = readState();
    const password = (JSON.parse(fs.readFileSync(path.join(OUT, 'secrets.json'), 'utf8')) as { DATABASE_ROLE_PASSWORD: string })
      .DATABASE_ROLE_PASSWORD;
    const as = async (role: string) => {
      const client = new pg.Client({ connectionString: Object.assign(new URL(appUrl), { username: role, password }).toString() });
      await client.connect();
      return client;
    };
    const pids = async (role: string) =>
      (
        await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where usename = $1 and datname = $2', [
          role,
          state.databases.app,
        ])
      ).rows[0].n;
    const admin = new pg.Client({ connectionString: appUrl });
    await admin.connect();
    const api = await as(roles.api);
    const worker = await as(roles.worker);
    try {
      // The running processes are connected as those roles (beyond the two connections made here).
      expect(await pids(roles.api)).toBeGreaterThan(1);
      expect(await pids(roles.worker)).toBeGreaterThan(1);
      const forged = `INSERT INTO audit_leaves (entry_key, kind, leaf, leaf_hash) VALUES ('forged:${randomUUID()}', 'ledger.entry', '{"amount_minor":100000000}', '\\x00')`;
      await expect(api.query(forged)).rejects.toThrow(/permission denied for table audit_leaves/);
      await expect(api.query(`INSERT INTO audit_signing_keys (public_key) VALUES ('\\x01')`)).rejects.toThrow(
        /permission denied for table audit_signing_keys/,
      );
      await expect(api.query('UPDATE audit_signing_keys SET published_at = now()')).rejects.toThrow(
        /permission denied for table audit_signing_keys/,
      );
      await expect(api.query('DELETE FROM audit_tree_heads')).rejects.toThrow(/permission denied for table audit_tree_heads/);
      // It reads the public key it serves, which a worker published: the signing key itself is in no table.
      expect((await api.query('select count(*)::int as n from audit_signing_keys')).rows[0].n).toBeGreaterThan(0);
      // The workers' role may append (rolled back here: nothing forged stays in the trail).
      await worker.query('BEGIN');
      await worker.query(forged);
      await worker.query('ROLLBACK');
    } finally {
      await Promise.all([api.end(), worker.end(), admin.end()]);
    }
  });

  it('takes payments through both APIs to their final status, with every webhook delivered', async () => {
    const released = await create(api1, { amount: 10.5 });
    const refunded = await create(api2, { amount: 20, currency: 'EUR' });
    await transition(api2, released, 'deposit', 'in_custody');
    await transition(api1, released, 'approve', 'pending_release');
    await transition(api2, released, 'release', 'released');
    await transition(api1, refunded, 'deposit', 'in_custody');
    await transition(api2, refunded, 'refund', 'refunded');
    expect((await api1.get(`/api/v1/payments/${released}`, { key })).body.status).toBe('released');
    expect((await api2.get(`/api/v1/payments/${refunded}`, { key })).body.status).toBe('refunded');
    await delivered(released, ['payment.created', 'payment.deposited', 'payment.approved', 'payment.released']);
    await delivered(refunded, ['payment.created', 'payment.deposited', 'payment.refunded']);
  });

  it('a worker SIGKILLed while it delivers a transition’s webhook: the payment goes on, the webhook arrives', async () => {
    const id = await create(api1);
    let heldFrom: number | undefined;
    respond = (r) => {
      if (heldFrom === undefined && r.headers['x-service-event'] === 'payment.deposited' && r.raw.toString().includes(id)) {
        heldFrom = r.remotePort;
        return 'hang';
      }
      return 200;
    };
    await transition(api2, id, 'deposit', 'in_custody');
    await eventually(async () => heldFrom, 60_000, 'the deposited webhook to reach the receiver');
    // The worker process holding that connection: its socket's inode among its open files.
    const workers = Object.entries(state.processes).filter(([name]) => name.startsWith('worker-'));
    const owner = workers.find(([, pid]) => ownsLocalPort(pid, heldFrom!));
    expect(owner, `a worker owns the connection from port ${heldFrom}`).toBeDefined();
    process.kill(owner![1], 'SIGKILL');
    respond = () => 200;
    // The other worker takes the delivery over (after its start-to-close time-out): the receiver gets it
    // again (the held request was never answered), and the payment goes on.
    const deposited = () =>
      receiver.received.filter((r) => r.headers['x-service-event'] === 'payment.deposited' && r.raw.toString().includes(id));
    await eventually(async () => (deposited().length >= 2 ? true : undefined), 120_000, 'the deposited webhook to be delivered again');
    expect(deposited().at(-1)!.remotePort).not.toBe(heldFrom);
    await transition(api1, id, 'approve', 'pending_release');
    await transition(api2, id, 'release', 'released');
    await delivered(id, ['payment.approved', 'payment.released']);
    // …and the stack restarted the killed worker, as compose's restart policy would.
    const after = await eventually(
      async () => {
        const s = readState();
        return s.processes[owner![0]] && s.processes[owner![0]] !== owner![1] ? s : undefined;
      },
      60_000,
      'the worker to be restarted',
    );
    expect(after.restarts[owner![0]]).toBeGreaterThanOrEqual(1);
    state = after;
  });

  it('the Temporal server killed and restarted: /readyz answers 503 while it is down, then payments go on and none is lost', async () => {
    const inCustody = await create(api1, { amount: 55 });
    const pending = await create(api2, { amount: 66 });
    await transition(api1, inCustody, 'deposit', 'in_custody');
    const serverPid = state.processes.temporal;
    // Frozen first, so "down" lasts as long as the test needs; then killed (the stack restarts it).
    process.kill(serverPid, 'SIGSTOP');
    try {
      for (const api of [api1, api2]) {
        const res = await eventually(
          async () => {
            const r = await api.get('/readyz');
            return r.status === 503 ? r : undefined;
          },
          60_000,
          '/readyz to answer 503',
        );
        expect(res.body).toMatchObject({ status: 'unavailable', checks: { temporal: 'unavailable', postgres: 'ok' } });
      }
    } finally {
      process.kill(serverPid, 'SIGKILL');
    }
    const restarted = await eventually(
      async () => {
        const s = readState();
        return s.processes.temporal && s.processes.temporal !== serverPid ? s : undefined;
      },
      60_000,
      'the Temporal server to be restarted',
    );
    state = restarted;
    for (const api of [api1, api2])
      await eventually(async () => ((await api.get('/readyz')).status === 200 ? true : undefined), 120_000, '/readyz to answer 200 again');
    // Nothing lost: both payments are where they were, and go on.
    expect((await api2.get(`/api/v1/payments/${inCustody}`, { key })).body.status).toBe('in_custody');
    expect((await api1.get(`/api/v1/payments/${pending}`, { key })).body.status).toBe('pending_deposit');
    await transition(api2, inCustody, 'approve', 'pending_release');
    await transition(api1, inCustody, 'release', 'released');
    await transition(api1, pending, 'deposit', 'in_custody');
    expect((await api2.post(`/api/v1/payments/${pending}/cancel`, { key })).status).toBe(409); // not pending any more
    expect((await api2.get(`/api/v1/payments/${pending}`, { key })).body.status).toBe('in_custody');
    await delivered(inCustody, ['payment.created', 'payment.deposited', 'payment.approved', 'payment.released']);
    await delivered(pending, ['payment.created', 'payment.deposited']);
  });

  describe('search PaymentStatus="in_custody"', () => {
    let custody: string;
    let waiting: string;

    beforeAll(async () => {
      custody = await create(api1, { amount: 4321.5, currency: 'EUR', description: 'cluster search' });
      waiting = await create(api2, { amount: 7 });
      await transition(api2, custody, 'deposit', 'in_custody');
    });

    it('`temporal workflow list` against the cluster finds the payment in custody, not the one pending', async () => {
      const ids = await eventually(
        async () => {
          const out = cli('workflow', 'list', '--query', 'PaymentStatus="in_custody"', '--output', 'json');
          const found = (JSON.parse(out || '[]') as { execution: { workflowId: string } }[]).map((w) => w.execution.workflowId);
          return found.includes(custody) ? found : undefined;
        },
        60_000,
        `${custody} in temporal workflow list`,
      );
      expect(ids).not.toContain(waiting);
      const pendingIds = (
        JSON.parse(cli('workflow', 'list', '--query', 'PaymentStatus="pending_deposit"', '--output', 'json') || '[]') as {
          execution: { workflowId: string };
        }[]
      ).map((w) => w.execution.workflowId);
      expect(pendingIds).toContain(waiting);
      expect(pendingIds).not.toContain(custody);
    });

    it('the Temporal UI server, in Chromium, lists the payment in custody for that search', async () => {
      if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/install-browser.sh first`);
      let browser: Browser | undefined;
      try {
        browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
        });
        const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, timezoneId: 'UTC', locale: 'en-US' });
        page.setDefaultTimeout(15_000);
        const row = (id: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: id, exact: true }) });
        await page.goto(`${state.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent('PaymentStatus="in_custody"')}`);
        await eventually(
          async () => {
            if (await row(custody).isVisible()) return true;
            await page.reload();
            return (
              (await row(custody)
                .waitFor({ state: 'visible', timeout: 3_000 })
                .then(
                  () => true,
                  () => undefined,
                )) ?? undefined
            );
          },
          60_000,
          `${custody} in the UI`,
        );
        expect(await row(waiting).count()).toBe(0);
        await page.screenshot({ path: path.join(OUT, 'temporal-ui-in-custody.png'), fullPage: true });
      } finally {
        await browser?.close();
      }
    });
  });

  it('a payment terminated in custody is repaired by npm run repair and released, nothing doubled', async () => {
    const id = await create(api1, { amount: 31 });
    await transition(api1, id, 'deposit', 'in_custody');
    await delivered(id, ['payment.created', 'payment.deposited']);
    cli('workflow', 'terminate', '--workflow-id', id, '--reason', 'an operator pressed Terminate');
    const repair = spawnSync('npx', ['tsx', 'scripts/repair.ts', '--payment', id], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: appUrl, TEMPORAL_ADDRESS: state.temporalAddress, TEMPORAL_TASK_QUEUE: 'payments' },
    });
    expect(repair.status, repair.stderr).toBe(0);
    expect(repair.stdout).toContain(`${id} start: in_custody in the read model, but its run is terminated → new run`);
    await transition(api2, id, 'approve', 'pending_release');
    await transition(api1, id, 'release', 'released');
    await delivered(id, ['payment.created', 'payment.deposited', 'payment.approved', 'payment.released']);
    const history = (await api2.get(`/api/v1/payments/${id}/events`, { key })).body.data as { seq: number }[];
    expect(history.map((h) => h.seq).sort()).toEqual([1, 2, 3, 4]);
    const db = new pg.Client({ connectionString: appUrl });
    await db.connect();
    try {
      const entries = await db.query('select version from ledger_entries where payment_id = $1 order by version', [id]);
      expect(entries.rows.map((r: { version: number }) => r.version)).toEqual([2, 4]);
      const deliveries = await db.query('select event, count(*)::int as n from webhook_deliveries where payment_id = $1 group by event', [
        id,
      ]);
      expect(deliveries.rows.every((r: { n: number }) => r.n === 1)).toBe(true);
    } finally {
      await db.end();
    }
  });

  it('Ctrl-C stops every process it started', async () => {
    const pids = Object.values(readState().processes);
    expect(pids.length).toBe(6);
    for (const pid of pids) expect(alive(pid), `pid ${pid} running before Ctrl-C`).toBe(true);
    process.kill(-stack!.child.pid!, 'SIGINT');
    await stack!.exited; // npm itself ends by the signal, as on a terminal; the stack says it stopped everything
    expect(stack!.output()).toContain('stack:cluster: SIGINT: stopping every process it started');
    expect(stack!.output()).toContain('stack:cluster: stopped');
    for (const pid of pids) expect(alive(pid), `pid ${pid} still running after Ctrl-C`).toBe(false);
    for (const url of state.apiUrls) await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

/** Whether process `pid` has the TCP socket whose local port is `port` (from /proc/net/tcp and its fds). */
function ownsLocalPort(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && parseInt(f[1].split(':').at(-1)!, 16) === port) inodes.add(f[9]);
    }
  }
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      const target = (() => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const m = target.match(/^socket:\[(\d+)\]$/);
      return m !== null && inodes.has(m[1]);
    });
  } catch {
    return false;
  }
}
