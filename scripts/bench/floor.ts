/**
 * (B3) and (B4), the design's floor with its API and read model: its tables (an API-key table seeded with one
 * key, and the payments read model) in the `bench` schema under names of this run, dropped at the
 * end; and its HTTP front (./floorFront.ts) as a process of its own, so that its CPU is measured
 * apart. The workflow and its activity run on the engine's worker (./engineWorker.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { freePort } from '../../src/platform/lib/net';
import { type Child, startChild } from './child';
import { withUser } from './plainPg';

export interface FloorTables {
  keys: string;
  payments: string;
  /** The one API key the clients send, whose SHA-256 the keys table holds. */
  apiKey: string;
  /** The read model's rows by status and version ("released v4: 120, …"): what the projections left. */
  census(): Promise<string>;
  drop(): Promise<void>;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

async function withPg<T>(databaseUrl: string, fn: (pg: PgClient) => Promise<T>): Promise<T> {
  const pg = new PgClient({ connectionString: withUser(databaseUrl) });
  await pg.connect();
  try {
    return await fn(pg);
  } finally {
    await pg.end().catch(() => undefined);
  }
}

export async function createFloorTables(databaseUrl: string): Promise<FloorTables> {
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const keys = `bench.floor_keys_${suffix}`;
  const payments = `bench.floor_payments_${suffix}`;
  const apiKey = `sk_bench_${randomBytes(24).toString('hex')}`;
  await withPg(databaseUrl, async (pg) => {
    await pg.query('CREATE SCHEMA IF NOT EXISTS bench');
    await pg.query(`CREATE TABLE ${keys} (key_hash text PRIMARY KEY, account_id text NOT NULL)`);
    await pg.query(`CREATE TABLE ${payments} (
      id text PRIMARY KEY, account_id text NOT NULL, status text NOT NULL, version int NOT NULL, amount_minor bigint NOT NULL,
      currency text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`);
    await pg.query(`INSERT INTO ${keys} (key_hash, account_id) VALUES ($1, 'acct_bench')`, [sha256Hex(apiKey)]);
  });
  return {
    keys,
    payments,
    apiKey,
    census: () =>
      withPg(databaseUrl, async (pg) => {
        const { rows } = await pg.query<{ status: string; version: number; n: string }>(
          `SELECT status, version, count(*) AS n FROM ${payments} GROUP BY status, version ORDER BY version DESC, status`,
        );
        return rows.map((r) => `${r.status} v${r.version}: ${r.n}`).join(', ') || 'no rows';
      }),
    drop: () => withPg(databaseUrl, (pg) => pg.query(`DROP TABLE IF EXISTS ${payments}, ${keys}`)).then(() => undefined),
  };
}

export interface FloorFront extends Child {
  url: string;
}

export async function startFloorFront(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  databaseUrl: string;
  tables: FloorTables;
  /** B3's `benchFloorWorkflow` or B4's `benchSplitFloorWorkflow`. */
  workflow: string;
}): Promise<FloorFront> {
  const port = await freePort();
  const child = await startChild(
    'floor-front',
    'scripts/bench/floorFront.ts',
    {
      BENCH_TEMPORAL_ADDRESS: opts.address,
      BENCH_NAMESPACE: opts.namespace,
      BENCH_TASK_QUEUE: opts.taskQueue,
      BENCH_DATABASE_URL: opts.databaseUrl,
      BENCH_FLOOR_KEYS: opts.tables.keys,
      BENCH_FLOOR_PAYMENTS: opts.tables.payments,
      BENCH_FLOOR_WORKFLOW: opts.workflow,
      BENCH_PORT: String(port),
    },
    async (output) => output().includes('ready'),
  );
  return { ...child, url: `http://127.0.0.1:${port}` };
}
