/**
 * The statements a call sends that name `id` among their bindings, with every transaction's BEGIN,
 * COMMIT and ROLLBACK: a stack's worker shares the test's database handle, so its own statements
 * are left out by the id.
 */
import type { Knex } from 'knex';

export async function statementsNaming<T>(db: Knex, id: string, call: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const listen = (q: { sql: string; bindings?: unknown[] }) => {
    if (/^(BEGIN|COMMIT|ROLLBACK);?$/i.test(q.sql.trim()) || q.bindings?.includes(id)) statements.push(q.sql);
  };
  db.on('query', listen);
  try {
    return { result: await call(), statements };
  } finally {
    db.off('query', listen);
  }
}
