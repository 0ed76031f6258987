/**
 * (C) A plain PostgreSQL state machine: node:http and pg, no framework, no auth. Each transition
 * is one transaction: SELECT … FOR UPDATE, the service's own transition rule, UPDATE, INSERT a
 * history row. Its tables live in the `bench` schema under names of this run, dropped at the end.
 */
import os from 'node:os';
import { Pool, type PoolClient } from 'pg';
import { ulid } from 'ulid';
import { type ClientAction, type PaymentStatus } from '../../src/payments/paymentTypes.rules';
import { INITIAL_STATUS, checkTransition } from '../../src/payments/payment.rules';
import { type Answer, listenForPayments } from './paymentRoutes';

export interface PlainServer {
  url: string;
  close(): Promise<void>;
}

/** node-postgres needs the user that libpq would take from the login (as src/platform/database/knex.ts does). */
export function withUser(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (!url.username) url.username = process.env.PGUSER || os.userInfo().username;
  return url.toString();
}

/** `poolSize` connections: the service's knex pool has 10, shared by its API and worker. */
export async function startPlainServer(databaseUrl: string, poolSize = 10): Promise<PlainServer> {
  const pool = new Pool({ connectionString: withUser(databaseUrl), max: poolSize });
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const payments = `bench.plain_payments_${suffix}`;
  const history = `bench.plain_history_${suffix}`;
  await pool.query('CREATE SCHEMA IF NOT EXISTS bench');
  await pool.query(`CREATE TABLE ${payments} (
    id text PRIMARY KEY, status text NOT NULL, version int NOT NULL, amount_minor bigint NOT NULL, currency text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE TABLE ${history} (
    id bigserial PRIMARY KEY, payment_id text NOT NULL REFERENCES ${payments}(id), action text NOT NULL,
    from_status text, to_status text NOT NULL, version int NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE INDEX ON ${history} (payment_id)`);

  async function inTransaction<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  async function create(body: { amount?: number; currency?: string }): Promise<Answer> {
    const id = `pay_${ulid()}`;
    const amountMinor = Math.round(Number(body.amount ?? 0) * 100);
    await inTransaction(async (c) => {
      await c.query(`INSERT INTO ${payments} (id, status, version, amount_minor, currency) VALUES ($1, $2, 1, $3, $4)`, [
        id,
        INITIAL_STATUS,
        amountMinor,
        body.currency ?? 'USD',
      ]);
      await c.query(`INSERT INTO ${history} (payment_id, action, from_status, to_status, version) VALUES ($1, 'create', NULL, $2, 1)`, [
        id,
        INITIAL_STATUS,
      ]);
    });
    return [201, { id, status: INITIAL_STATUS, version: 1 }];
  }

  async function transition(id: string, action: ClientAction): Promise<Answer> {
    return inTransaction(async (c) => {
      const { rows } = await c.query<{ status: PaymentStatus; version: number }>(
        `SELECT status, version FROM ${payments} WHERE id = $1 FOR UPDATE`,
        [id],
      );
      if (!rows[0]) return [404, { error: 'not_found' }];
      const check = checkTransition(rows[0].status, action);
      if (!check.ok) return [409, { error: 'invalid_transition', status: rows[0].status }];
      const version = rows[0].version + 1;
      await c.query(`UPDATE ${payments} SET status = $2, version = $3, updated_at = now() WHERE id = $1`, [
        id,
        check.transition.to,
        version,
      ]);
      await c.query(`INSERT INTO ${history} (payment_id, action, from_status, to_status, version) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        action,
        rows[0].status,
        check.transition.to,
        version,
      ]);
      return [200, { id, status: check.transition.to, version }];
    });
  }

  const listening = await listenForPayments({ create, transition });
  return {
    url: listening.url,
    async close() {
      await listening.close();
      await pool.query(`DROP TABLE IF EXISTS ${history}, ${payments}`).catch(() => undefined);
      await pool.end();
    },
  };
}
