/** The database connection (PostgreSQL, or embedded PGlite when DATABASE_URL is unset) and its migrations. */
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { lockPgliteDir } from './pgliteLock';

// bigint columns come back as strings (exact); counts too. Timestamps stay Date objects.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export const MIGRATIONS_DIR = path.resolve(__dirname, '../../../migrations');

/**
 * PostgreSQL at `databaseUrl`, or, when it is unset, an embedded PGlite database under `dataDir`,
 * which this process then holds alone until `destroy()` (a second process is refused: pgliteLock.ts,
 * with `whileRunning`, what to do instead while `npm start` holds it).
 */
export function createDb(databaseUrl: string | undefined, dataDir?: string, whileRunning?: string): Knex {
  if (databaseUrl) {
    // libpq falls back to the login name when the URL names no user; node-postgres needs telling.
    const url = new URL(databaseUrl);
    if (!url.username) url.username = process.env.PGUSER || os.userInfo().username;
    return knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 10 } });
  }
  if (!dataDir) throw new Error('no DATABASE_URL and no data folder for the embedded database');
  const filename = path.join(dataDir, 'pglite');
  fs.mkdirSync(filename, { recursive: true });
  const release = lockPgliteDir(filename, whileRunning);
  const db = knexFactory({ client: ClientPgLite, dialect: 'postgres', connection: { filename } } as Knex.Config);
  // Released once the client is destroyed (db.destroy()), or at the latest when the process exits.
  const client = db.client as { destroy: (callback?: unknown) => Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = async (callback?: unknown) => {
    try {
      return await destroy(callback);
    } finally {
      release();
    }
  };
  return db;
}

export async function migrate(db: Knex): Promise<void> {
  await db.migrate.latest({ directory: MIGRATIONS_DIR, loadExtensions: ['.js'] });
}
