/**
 * `npm run bench`: one run that measures, at each concurrency (closed-loop clients),
 *  (A)  this service: create → deposit → approve → release over HTTP with an API key, per-endpoint
 *       percentiles, webhook lag at a receiver verifying every signature, errors, memory, CPU per
 *       process (API, worker, Temporal, PostgreSQL, clients);
 *  (B)  the engine ceiling: a trivial workflow started and taking three Updates through the
 *       Temporal client, on its own worker and task queue, on the same dev server;
 *  (B2) the least work the design allows: B plus one activity per transition POSTing the signed
 *       event to the same receiver under a retry policy;
 *  (B3) the design's floor with its API and read model: B2 behind a node:http front that looks the
 *       API key up in PostgreSQL and writes the payment's row at create, driven over HTTP like A, its
 *       activity projecting each transition onto that row (version-guarded) before the POST;
 *  (B4) B3 with the projection and the POST as two activities, the POST on a webhooks task queue
 *       with a fairness key, as the service's contract requires (only with `--systems`);
 *  (C)  a plain node:http + pg server doing the same four transitions as row-locked updates;
 * then reads with many open payments; with `--stack cluster`, A again against `npm run stack:cluster`.
 * Prints tables (stdout), draws an SVG chart, and with `--write-docs` rewrites the "Latest results"
 * of docs/benchmarks.md. Asserts nothing: speed lives here, never in the tests. See docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { findTemporalCli } from '../src/platform/lib/temporalDevServer';
import { type BenchOptions, parseArgs } from './bench/args';
import { engineLifecycle, ENGINE_STEPS, startEngineWorker } from './bench/engine';
import { createFloorTables, startFloorFront } from './bench/floor';
import { JsonClient } from './bench/http';
import { STEP_NAMES, createBody, httpLifecycle, stagedLifecycle } from './bench/httpLifecycle';
import { closedLoop, errorKind, forEachConcurrently } from './bench/loop';
import { startPlainServer, withUser } from './bench/plainPg';
import { pgSnapshot, writesPer } from './bench/pgStats';
import { cpuBetween, MemoryWatch, type ProcSet } from './bench/proc';
import { Progress } from './bench/progress';
import { WebhookReceiver } from './bench/receiver';
import { docsSection, markdownTables, relativeTo, renderSvg, rewriteDocs } from './bench/report';
import {
  type BenchResult,
  type Failures,
  type HistoryShape,
  type LevelResult,
  type Machine,
  type ReadsResult,
  type System,
  STAGED_MILESTONES,
  SYSTEM_CODE,
  SYSTEM_LABEL,
} from './bench/results';
import { fmt, Recorder, summarize } from './bench/stats';
import { type ServiceTarget, startTarget } from './bench/target';

const progress = new Progress();
/** How long to wait, after a level, for the deliveries it still owes. */
const DELIVERY_WAIT_MS = 120_000;
const WARMUP_LIFECYCLES = 5;

type Pids = Record<string, ProcSet | undefined>;

interface LevelSpec {
  system: System;
  concurrency: number;
  durationMs: number;
  steps: string[];
  op: (rec: Recorder) => Promise<unknown>;
  /** For A: the service's database, whose writes per lifecycle are measured. */
  databaseUrl?: string;
  /** For A: transition answers, and the receiver their deliveries reach. */
  webhooks?: { answered: Map<string, number>; receiver: WebhookReceiver };
  pids: Pids;
}

async function runLevel(spec: LevelSpec): Promise<LevelResult> {
  const rec = new Recorder();
  const pgBefore = spec.databaseUrl ? await pgSnapshot(spec.databaseUrl) : undefined;
  const watch = new MemoryWatch(spec.pids).start();
  const cpuBefore = watch.cpuMs();
  const bad = spec.webhooks
    ? { sig: spec.webhooks.receiver.badSignatures, unreadable: spec.webhooks.receiver.unreadable, dup: spec.webhooks.receiver.duplicates }
    : undefined;
  const label = `${spec.system} × ${spec.concurrency}`;
  const loop = await closedLoop(
    spec.concurrency,
    spec.durationMs,
    () => spec.op(rec),
    (s) =>
      progress.update(
        label,
        `${(s.elapsedMs / 1000).toFixed(0)}/${spec.durationMs / 1000} s, ${s.completed} lifecycles (${(s.completed / (s.elapsedMs / 1000)).toFixed(1)}/s), ${s.failed} failed`,
      ),
  );
  const cpuAfter = watch.cpuMs();
  let webhooks: LevelResult['webhooks'];
  if (spec.webhooks && bad) {
    const { answered, receiver } = spec.webhooks;
    const keys = [...answered.keys()];
    const missing = await receiver.waitFor(keys, DELIVERY_WAIT_MS, (n) =>
      progress.update(label, `waiting for ${n} of ${keys.length} webhook deliveries`),
    );
    const lag = keys.filter((k) => receiver.arrivals.has(k)).map((k) => receiver.arrivals.get(k)! - answered.get(k)!);
    webhooks = {
      expected: keys.length,
      delivered: keys.length - missing.length,
      missing: missing.length,
      duplicates: receiver.duplicates - bad.dup,
      badSignatures: receiver.badSignatures - bad.sig,
      unreadable: receiver.unreadable - bad.unreadable,
      lag: summarize(lag),
    };
  }
  const rssMb = watch.stop();
  const pgWrites = spec.databaseUrl ? writesPer(pgBefore, await pgSnapshot(spec.databaseUrl), loop.completed) : undefined;
  const perLifecycle = Object.fromEntries(
    Object.entries(cpuBetween(cpuBefore, cpuAfter)).map(([name, cpu]) => [name, loop.completed ? cpu / loop.completed : NaN]),
  );
  const result: LevelResult = {
    system: spec.system,
    concurrency: spec.concurrency,
    lifecycles: loop.completed,
    failed: loop.failed,
    elapsedS: loop.elapsedMs / 1000,
    throughput: loop.completed / (loop.elapsedMs / 1000),
    steps: rec.summary(),
    request: rec.pooled(spec.steps),
    transition: rec.pooled(spec.steps.slice(1)),
    lifecycle: rec.pooled(['lifecycle']),
    errors: loop.errors,
    webhooks,
    rssMb,
    cpuMsPerLifecycle: perLifecycle,
    pgWrites,
  };
  const w = webhooks
    ? `, webhook lag p50 ${fmt(webhooks.lag.p50)} / p99 ${fmt(webhooks.lag.p99)} ms, ${webhooks.delivered}/${webhooks.expected} delivered`
    : '';
  progress.log(`${label}: ${fmt(result.throughput)} lifecycles/s, request p99 ${fmt(result.request.p99)} ms, ${loop.failed} failed${w}`);
  for (const [kind, e] of Object.entries(loop.errors)) progress.log(`  ${e.count} × ${kind}: ${e.example}`);
  return result;
}

async function warmUp(name: string, op: (rec: Recorder) => Promise<unknown>): Promise<void> {
  progress.update(`warming up ${name}`);
  for (let i = 0; i < WARMUP_LIFECYCLES; i++) await op(new Recorder());
}

async function levels(
  system: System,
  opts: BenchOptions,
  pids: Pids,
  op: (rec: Recorder, answered: Map<string, number>) => Promise<unknown>,
  steps: string[],
  receiver?: WebhookReceiver,
  databaseUrl?: string,
): Promise<LevelResult[]> {
  const out: LevelResult[] = [];
  for (const concurrency of opts.concurrency) {
    const answered = new Map<string, number>();
    out.push(
      await runLevel({
        system,
        concurrency,
        durationMs: opts.durationS * 1000,
        steps,
        pids,
        op: (rec) => op(rec, answered),
        webhooks: receiver && { answered, receiver },
        databaseUrl,
      }),
    );
  }
  return out;
}

async function runReads(opts: BenchOptions, api: JsonClient, receiver: WebhookReceiver, pids: Pids): Promise<ReadsResult> {
  const watch = new MemoryWatch(pids).start();
  const ids: string[] = [];
  const answered = new Map<string, number>();
  const errors: Failures = {};
  const fail = (err: unknown) => {
    const entry = (errors[errorKind(err)] ??= { count: 0, example: String((err as Error).message).slice(0, 300) });
    entry.count++;
  };
  let createFailed = 0;
  const started = performance.now();
  const setup = new Recorder();
  const ticker = setInterval(() => {
    const s = (performance.now() - started) / 1000;
    progress.update('creating open payments', `${ids.length}/${opts.reads} (${(ids.length / s).toFixed(1)}/s), ${createFailed} failed`);
  }, 250);
  try {
    await forEachConcurrently(opts.reads, 32, async (i) => {
      try {
        const p = await api.call<{ id: string }>(setup, 'create', 'POST', '/api/v1/payments', createBody(i));
        ids.push(p.id);
        answered.set(`${p.id} payment.created`, performance.now());
      } catch (err) {
        createFailed++;
        fail(err);
      }
    });
  } finally {
    clearInterval(ticker);
  }
  const createS = (performance.now() - started) / 1000;
  progress.log(`${ids.length} open payments created in ${fmt(createS)} s (${fmt(ids.length / createS)}/s), ${createFailed} failed`);
  for (const [kind, e] of Object.entries(errors)) progress.log(`  ${e.count} × ${kind}: ${e.example}`);
  const missing = await receiver.waitFor([...answered.keys()], Math.max(DELIVERY_WAIT_MS, opts.reads * 50), (n) =>
    progress.update('reads', `waiting for ${n} payment.created deliveries`),
  );

  const endpoints: ReadsResult['endpoints'] = {};
  const read = async (name: string, op: (rec: Recorder) => Promise<void>) => {
    const rec = new Recorder();
    const loop = await closedLoop(
      opts.readConcurrency,
      opts.durationS * 1000,
      () => op(rec),
      (s) =>
        progress.update(
          `reads: ${name}`,
          `${(s.elapsedMs / 1000).toFixed(0)}/${opts.durationS} s, ${s.completed} requests, ${s.failed} failed`,
        ),
    );
    for (const [kind, e] of Object.entries(loop.errors)) (errors[kind] ??= { count: 0, example: e.example }).count += e.count;
    endpoints[name] = { ...rec.pooled([name]), throughput: loop.completed / (loop.elapsedMs / 1000), failed: loop.failed };
    progress.log(`reads: ${name}: p50 ${fmt(endpoints[name].p50)} ms, p99 ${fmt(endpoints[name].p99)} ms, ${loop.failed} failed`);
  };
  if (ids.length) {
    await read('GET /payments/:id', async (rec) => {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const p = await api.call<{ id: string; status: string }>(rec, 'GET /payments/:id', 'GET', `/api/v1/payments/${id}`);
      if (p.id !== id || p.status !== 'pending_deposit') throw new Error(`GET ${id} answered ${p.id} in status ${p.status}`);
    });
  }
  await read('GET /payments?limit=20', async (rec) => {
    const list = await api.call<{ data: unknown[] }>(rec, 'GET /payments?limit=20', 'GET', '/api/v1/payments?limit=20');
    if (list.data.length !== 20) throw new Error(`the listing answered ${list.data.length} payments, not 20`);
  });
  // Every payment of the run is in the bench account and in USD: one balance over all of them.
  await read('GET /balance', async (rec) => {
    const balance = await api.call<{ balances?: { currency: string }[] }>(rec, 'GET /balance', 'GET', '/api/v1/balance');
    if (!balance.balances?.some((b) => b.currency === 'USD'))
      throw new Error(`the balance answered ${JSON.stringify(balance).slice(0, 200)}`);
  });
  return {
    openPayments: ids.length,
    createS,
    createFailed,
    webhooksMissing: missing.length,
    concurrency: opts.readConcurrency,
    endpoints,
    errors,
    rssMb: watch.stop(),
  };
}

/** Events, workflow tasks, activities and updates of one lifecycle's run, once it has closed. */
async function historyShape(client: Client, workflowId: string): Promise<HistoryShape | undefined> {
  if (!workflowId) return undefined;
  const handle = client.workflow.getHandle(workflowId);
  try {
    await Promise.race([handle.result(), new Promise((r) => setTimeout(r, 30_000))]);
    const events = (await handle.fetchHistory()).events ?? [];
    const count = (has: (e: (typeof events)[number]) => unknown) => events.filter((e) => has(e)).length;
    return {
      workflowId,
      events: events.length,
      workflowTasks: count((e) => e.workflowTaskCompletedEventAttributes),
      activities: count((e) => e.activityTaskScheduledEventAttributes),
      updates: count((e) => e.workflowExecutionUpdateAcceptedEventAttributes),
      workflowTaskTimeouts: count((e) => e.workflowTaskTimedOutEventAttributes),
    };
  } catch (err) {
    progress.log(`history of ${workflowId} not read: ${(err as Error).message}`);
    return undefined;
  }
}

async function machine(databaseUrl: string): Promise<Machine> {
  const m: Machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? '?',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  };
  const pg = new PgClient({ connectionString: withUser(databaseUrl) });
  try {
    await pg.connect();
    const { rows } = await pg.query<{ server_version: string }>('SHOW server_version');
    m.postgres = `PostgreSQL ${rows[0].server_version.split(' ')[0]}`;
  } catch {
    // reported as unknown
  } finally {
    await pg.end().catch(() => undefined);
  }
  try {
    const cli = await findTemporalCli();
    if (cli)
      m.temporalCli = execFileSync(cli, ['--version'], { encoding: 'utf8' })
        .trim()
        .replace(/^temporal version /, '');
  } catch {
    // reported as unknown
  }
  return m;
}

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${sha}+changes` : sha;
  } catch {
    return 'unknown';
  }
}

/** Process sets of a service target's levels. */
const servicePids = (t: ServiceTarget): Pids => ({
  client: 'self',
  api: t.pids.api,
  worker: t.pids.worker,
  temporal: t.pids.temporal,
  postgres: 'postgres',
});

/** Configure the receiver as the account's webhook for every event; the receiver checks with its secret. */
async function configureReceiver(api: JsonClient, receiver: WebhookReceiver): Promise<void> {
  const configured = await api.call<{ webhook: { secret: string } }>(new Recorder(), 'configure', 'POST', '/api/v1/webhooks/configure', {
    url: receiver.url,
  });
  receiver.secret = configured.webhook.secret;
}

/**
 * (A) and (A10): lifecycles over HTTP, alternating between the target's APIs; the last lifecycle's
 * payment id in `last`. A10's payments have STAGED_MILESTONES milestones each.
 */
async function serviceLevels(system: System, opts: BenchOptions, target: ServiceTarget, receiver: WebhookReceiver, result: BenchResult) {
  const apis = target.apiUrls.map((url) => new JsonClient(url, { 'x-api-key': target.testKey }));
  let turn = 0;
  const nextApi = () => apis[turn++ % apis.length];
  const lifecycle = (rec: Recorder, answered?: Map<string, number>) =>
    system === 'staged'
      ? stagedLifecycle(nextApi(), '/api/v1', rec, STAGED_MILESTONES, answered)
      : httpLifecycle(nextApi(), '/api/v1', rec, answered);
  try {
    const warm = new Map<string, number>();
    await warmUp(SYSTEM_LABEL[system], (rec) => lifecycle(rec, warm));
    await receiver.waitFor([...warm.keys()], DELIVERY_WAIT_MS);
    let last = '';
    const op = async (rec: Recorder, answered: Map<string, number>) => void (last = await lifecycle(rec, answered));
    result.levels.push(...(await levels(system, opts, servicePids(target), op, STEP_NAMES, receiver, target.databaseUrl)));
    (result.histories ??= {})[system] = await historyShape(target.client, last);
  } finally {
    await Promise.all(apis.map((a) => a.close()));
  }
}

const ENGINE_SYSTEMS = ['engine', 'engineWebhooks', 'floorApi', 'floorSplit'] as const;
const FLOOR_WORKFLOWS = { floorApi: 'benchFloorWorkflow', floorSplit: 'benchSplitFloorWorkflow' } as const;
const isFloor = (system: System): system is keyof typeof FLOOR_WORKFLOWS => system in FLOOR_WORKFLOWS;

/**
 * (B), (B2), (B3) and (B4) on a worker process and task queue of their own, on the target's Temporal
 * server; B3 and B4 also with their tables and a front each (./bench/floor.ts), the front's CPU as `api`.
 */
async function engineLevels(opts: BenchOptions, target: ServiceTarget, receiver: WebhookReceiver, result: BenchResult) {
  const taskQueue = `bench-engine-${process.pid}`;
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const tables = opts.systems.some(isFloor) ? await createFloorTables(target.databaseUrl) : undefined;
    if (tables) stops.push(() => tables.drop());
    progress.update('starting the engine worker (bundles its workflows)');
    const worker = await startEngineWorker({
      address: target.temporalAddress,
      namespace: target.namespace,
      taskQueue,
      receiverUrl: receiver.url,
      receiverSecret: receiver.secret,
      floor: tables && { databaseUrl: target.databaseUrl, payments: tables.payments },
    });
    stops.push(() => worker.stop());
    const pids: Pids = { client: 'self', worker: [worker.pid], temporal: target.pids.temporal, postgres: 'postgres' };
    const floorsRun: string[] = [];
    for (const system of ENGINE_SYSTEMS.filter((s) => opts.systems.includes(s))) {
      let lifecycle = (rec: Recorder, answered?: Map<string, number>) =>
        engineLifecycle(target.client, taskQueue, rec, system === 'engineWebhooks' ? answered : undefined);
      let systemPids = pids;
      const floor = isFloor(system) ? system : undefined;
      if (floor && tables) {
        progress.update(`starting the ${SYSTEM_CODE[floor]} front`);
        const front = await startFloorFront({
          address: target.temporalAddress,
          namespace: target.namespace,
          taskQueue,
          databaseUrl: target.databaseUrl,
          tables,
          workflow: FLOOR_WORKFLOWS[floor],
        });
        const api = new JsonClient(front.url, { 'x-api-key': tables.apiKey });
        stops.push(
          () => front.stop(),
          () => api.close(),
        );
        lifecycle = (rec, answered) => httpLifecycle(api, '', rec, answered);
        systemPids = { ...pids, api: [front.pid] };
      }
      const webhooks = system !== 'engine';
      const warm = new Map<string, number>();
      await warmUp(SYSTEM_LABEL[system], (rec) => lifecycle(rec, warm));
      await receiver.waitFor([...warm.keys()], DELIVERY_WAIT_MS);
      let last = '';
      const op = async (rec: Recorder, answered: Map<string, number>) => void (last = await lifecycle(rec, answered));
      const steps = floor ? STEP_NAMES : ENGINE_STEPS;
      result.levels.push(...(await levels(system, opts, systemPids, op, steps, webhooks ? receiver : undefined)));
      (result.histories ??= {})[system] = await historyShape(target.client, last);
      if (floor && tables) {
        // B3 and B4 share the read-model table: after both, its rows are both's.
        floorsRun.push(SYSTEM_CODE[floor]);
        progress.log(`${floorsRun.join(' and ')} read model, rows by status and version: ${await tables.census()}`);
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => progress.log(`stopping: ${(err as Error).message}`));
  }
}

/** (C) plain node:http + pg in this process, driven by the same client loop. */
async function plainLevels(opts: BenchOptions, databaseUrl: string, result: BenchResult) {
  const plain = await startPlainServer(databaseUrl);
  const plainApi = new JsonClient(plain.url);
  try {
    await warmUp(SYSTEM_LABEL.plain, (rec) => httpLifecycle(plainApi, '', rec));
    result.levels.push(
      ...(await levels('plain', opts, { client: 'self', postgres: 'postgres' }, (rec) => httpLifecycle(plainApi, '', rec), STEP_NAMES)),
    );
  } finally {
    await plainApi.close();
    await plain.close();
  }
}

async function runAll(opts: BenchOptions, databaseUrl: string, receiver: WebhookReceiver, result: BenchResult): Promise<void> {
  const log = (msg: string) => progress.update(msg);
  const has = (s: System) => opts.systems.includes(s);
  if (has('service') || has('staged') || ENGINE_SYSTEMS.some(has) || has('plain')) {
    progress.update('starting the service on a dev server (dev server, worker, API)');
    const target = await startTarget('dev', databaseUrl, log);
    try {
      // One configuration per target: a second would deliver every event twice, signed with another secret.
      const api = new JsonClient(target.apiUrls[0], { 'x-api-key': target.testKey });
      await configureReceiver(api, receiver).finally(() => api.close());
      if (has('service')) await serviceLevels('service', opts, target, receiver, result);
      if (has('staged')) await serviceLevels('staged', opts, target, receiver, result);
      if (ENGINE_SYSTEMS.some(has)) await engineLevels(opts, target, receiver, result);
      if (has('plain')) await plainLevels(opts, databaseUrl, result);
      // Last: the open payments it leaves would load the Temporal server under the levels after it.
      if (has('service') && opts.reads > 0) {
        const api = new JsonClient(target.apiUrls[0], { 'x-api-key': target.testKey });
        result.reads = await runReads(opts, api, receiver, servicePids(target)).finally(() => api.close());
      }
    } finally {
      await target.stop();
    }
  }
  if (has('cluster')) {
    progress.update('starting npm run stack:cluster');
    const target = await startTarget('cluster', databaseUrl, log);
    try {
      const api = new JsonClient(target.apiUrls[0], { 'x-api-key': target.testKey });
      await configureReceiver(api, receiver).finally(() => api.close());
      await serviceLevels('cluster', opts, target, receiver, result);
    } finally {
      await target.stop();
    }
  }
}

/** A path as the user would type it: relative below the working directory, else absolute. */
const shown = (file: string) => (path.relative(process.cwd(), file).startsWith('..') ? file : path.relative(process.cwd(), file));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';
  const result: BenchResult = {
    startedAt: new Date().toISOString(),
    commit: commit(),
    machine: await machine(databaseUrl),
    options: {
      durationS: opts.durationS,
      concurrency: opts.concurrency,
      reads: opts.reads,
      readConcurrency: opts.readConcurrency,
      systems: opts.systems,
    },
    levels: [],
  };
  const m = result.machine;
  progress.log(
    `bench: ${m.cpus} CPUs, ${m.memoryGb} GB, Node ${m.node}, ${m.postgres ?? 'PostgreSQL ?'}, commit ${result.commit}; ${opts.durationS} s per level at ${opts.concurrency.join(', ')} clients`,
  );
  const receiver = new WebhookReceiver();
  await receiver.start();
  try {
    await runAll(opts, databaseUrl, receiver, result);
  } finally {
    progress.done();
    await receiver.close();
  }

  console.log(markdownTables(result));
  fs.mkdirSync(path.dirname(opts.svg), { recursive: true });
  fs.writeFileSync(opts.svg, renderSvg(result));
  console.log(`\nchart: ${shown(opts.svg)}`);
  if (opts.json) {
    fs.writeFileSync(opts.json, JSON.stringify(result, null, 2) + '\n');
    console.log(`json: ${shown(opts.json)}`);
  }
  if (opts.writeDocs) {
    rewriteDocs(opts.docs, docsSection(result, relativeTo(opts.docs, opts.svg)));
    console.log(`docs: ${shown(opts.docs)} (Latest results)`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    progress.done();
    console.error(err);
    process.exit(1);
  },
);
