/**
 * What a level wrote to PostgreSQL (docs/capacity.md): WAL bytes (server-wide: everything on the
 * server, Temporal's own tables too when it persists there) and rows inserted and updated per table
 * of the service's database, from pg_stat_user_tables (flushed by backends within a second or so,
 * so a snapshot is taken after a short pause).
 */
import { Client as PgClient } from 'pg';
import { withUser } from './plainPg';

export interface PgSnapshot {
  walLsn: bigint;
  tables: Record<string, { ins: number; upd: number }>;
}

export interface PgWrites {
  walBytes: number;
  inserted: Record<string, number>;
  updated: Record<string, number>;
}

export async function pgSnapshot(databaseUrl: string): Promise<PgSnapshot | undefined> {
  const pg = new PgClient({ connectionString: withUser(databaseUrl) });
  try {
    await pg.connect();
    await new Promise((r) => setTimeout(r, 1500));
    const wal = await pg.query<{ lsn: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS lsn");
    const rows = await pg.query<{ relname: string; ins: string; upd: string }>(
      "SELECT relname, n_tup_ins::text AS ins, n_tup_upd::text AS upd FROM pg_stat_user_tables WHERE schemaname = 'public'",
    );
    return {
      walLsn: BigInt(wal.rows[0].lsn.split('.')[0]),
      tables: Object.fromEntries(rows.rows.map((r) => [r.relname, { ins: Number(r.ins), upd: Number(r.upd) }])),
    };
  } catch {
    return undefined; // reported as unknown
  } finally {
    await pg.end().catch(() => undefined);
  }
}

/** Per lifecycle: WAL bytes, and rows inserted and updated per table (tables with none left out). */
export function writesPer(before: PgSnapshot | undefined, after: PgSnapshot | undefined, lifecycles: number): PgWrites | undefined {
  if (!before || !after || !lifecycles) return undefined;
  const inserted: Record<string, number> = {};
  const updated: Record<string, number> = {};
  for (const [table, t] of Object.entries(after.tables)) {
    const b = before.tables[table] ?? { ins: 0, upd: 0 };
    if (t.ins > b.ins) inserted[table] = (t.ins - b.ins) / lifecycles;
    if (t.upd > b.upd) updated[table] = (t.upd - b.upd) / lifecycles;
  }
  return { walBytes: Number(after.walLsn - before.walLsn) / lifecycles, inserted, updated };
}
