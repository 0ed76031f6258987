/**
 * (B3)'s API, in a process of its own (started by ./floor.ts): the routes of ./paymentRoutes.ts on
 * node:http, no framework. Every request's `x-api-key` is looked up in PostgreSQL by its SHA-256.
 * Create starts the workflow and INSERTs the payment's read-model row before it answers; a
 * transition checks in the same query as the key that the payment is the key's account's, then is
 * one Workflow Update, answered once the workflow has made it durable (its projection and delivery
 * run after, in the workflow's activities). The workflow it starts is BENCH_FLOOR_WORKFLOW's: B3's
 * `benchFloorWorkflow` or B4's `benchSplitFloorWorkflow`. Prints "ready" once it listens; closes on SIGTERM.
 */
import type http from 'node:http';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { Pool } from 'pg';
import { ulid } from 'ulid';
import { sha256Hex } from './floor';
import { type Answer, listenForPayments } from './paymentRoutes';
import { withUser } from './plainPg';
import { floorStepUpdate } from './workflows';

const UNAUTHORIZED: Answer = [401, { error: 'unauthorized' }];

const keyHash = (req: http.IncomingMessage) => {
  const key = req.headers['x-api-key'];
  return typeof key === 'string' ? sha256Hex(key) : '';
};

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const keys = env('BENCH_FLOOR_KEYS');
  const payments = env('BENCH_FLOOR_PAYMENTS');
  const taskQueue = env('BENCH_TASK_QUEUE');
  const workflowType = env('BENCH_FLOOR_WORKFLOW');
  const pool = new Pool({ connectionString: withUser(env('BENCH_DATABASE_URL')), max: 10 });
  const connection = await Connection.connect({ address: env('BENCH_TEMPORAL_ADDRESS') });
  const client = new Client({ connection, namespace: env('BENCH_NAMESPACE') });

  const listening = await listenForPayments(
    {
      async create(body, req) {
        const { rows } = await pool.query<{ account_id: string }>(`SELECT account_id FROM ${keys} WHERE key_hash = $1`, [keyHash(req)]);
        if (!rows[0]) return UNAUTHORIZED;
        const id = `pay_${ulid()}`;
        await client.workflow.start(workflowType, { taskQueue, workflowId: id });
        await pool.query(
          `INSERT INTO ${payments} (id, account_id, status, version, amount_minor, currency) VALUES ($1, $2, 'pending_deposit', 1, $3, $4)`,
          [id, rows[0].account_id, Math.round(Number(body.amount ?? 0) * 100), body.currency ?? 'USD'],
        );
        return [201, { id, status: 'pending_deposit', version: 1 }];
      },
      async transition(id, action, req) {
        const { rows } = await pool.query<{ owns: boolean }>(
          `SELECT p.id IS NOT NULL AS owns FROM ${keys} k LEFT JOIN ${payments} p ON p.id = $2 AND p.account_id = k.account_id
           WHERE k.key_hash = $1`,
          [keyHash(req), id],
        );
        if (!rows[0]) return UNAUTHORIZED;
        if (!rows[0].owns) return [404, { error: 'not_found' }];
        try {
          return [200, await client.workflow.getHandle(id).executeUpdate(floorStepUpdate, { args: [action] })];
        } catch (err) {
          if (err instanceof WorkflowUpdateFailedError) return [409, { error: 'invalid_transition', message: err.cause?.message }];
          throw err;
        }
      },
    },
    Number(env('BENCH_PORT')),
  );
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  await listening.close();
  await connection.close();
  await pool.end();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
