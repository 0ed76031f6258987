/**
 * A real stack for one test file: a worker on its own task queue and the API on an ephemeral port,
 * against the shared Temporal dev server and PostgreSQL. Nothing here is mocked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Knex } from 'knex';
import { inject } from 'vitest';
import { connectClient, startApiServer, type ApiServer } from '../../src/bootstrap';
import { loadConfig, type Config } from '../../src/config';
import { createAccount } from '../../src/db/accounts';
import { createDb } from '../../src/db/knex';
import { createLogger } from '../../src/lib/logger';
import { installRuntime } from '../../src/worker/runtime';
import { createWorker } from '../../src/worker/worker';

let runtime: Promise<void> | undefined;

export interface Stack {
  url: string;
  db: Knex;
  client: Client;
  config: Config;
  taskQueue: string;
  api: ApiServer;
  http: ReturnType<typeof httpClient>;
  newAccount(): Promise<TestAccount>;
  /** Stop this stack's worker only (the API stays up), as when every worker is down. */
  stopWorker(): Promise<void>;
  /** A new worker in place of the stopped one. */
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestAccount {
  account_id: string;
  email: string;
  password: string;
  test_api_key: string;
  live_api_key: string;
}

export async function startStack(env: Record<string, string> = {}): Promise<Stack> {
  // Once per test process, as in production: JSON logs (errors only here) and Core's worker metrics.
  runtime ??= installRuntime(createLogger(process.env.TEST_LOG_LEVEL ?? 'error'));
  await runtime;
  const address = env.TEMPORAL_ADDRESS ?? inject('temporalAddress');
  const taskQueue = `test-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '1000',
    // Never a known secret: fresh random ones for every stack.
    SERVICE_JWT_SECRET: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    // Tests receive webhooks on loopback; metrics on any free port.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    API_METRICS_PORT: '0',
    ...env,
  });
  const logger = createLogger(config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL);
  const connection = await NativeConnection.connect({ address });
  const newWorker = () => createWorker({ connection, db, config, logger, workflowBundlePath: inject('workflowBundlePath') });
  let worker = await newWorker();
  let running = worker.run();
  const stopWorker = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  };
  const client = await connectClient(address, config.TEMPORAL_NAMESPACE);
  const api = await startApiServer({ db, temporal: client, config, logger }, 0);
  return {
    url: api.url,
    db,
    client,
    config,
    taskQueue,
    api,
    http: httpClient(api.url),
    async newAccount() {
      const password = `pw-${randomUUID()}`;
      const created = await createAccount(db, `user-${randomUUID()}@example.com`, password);
      return { ...created, password };
    },
    stopWorker,
    async startWorker() {
      worker = await newWorker();
      running = worker.run();
    },
    async stop() {
      await api.close();
      await stopWorker();
      await client.connection.close();
      await connection.close();
      await db.destroy();
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function httpClient(base: string) {
  async function call<T = any>(
    method: string,
    path: string,
    opts: { key?: string; token?: string; mode?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers['X-API-Key'] = opts.key;
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    if (opts.mode) headers['X-Service-Mode'] = opts.mode;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }
  return {
    call,
    get: <T = any>(path: string, opts?: Parameters<typeof call>[2]) => call<T>('GET', path, opts),
    post: <T = any>(path: string, opts?: Parameters<typeof call>[2]) => call<T>('POST', path, opts),
    delete: <T = any>(path: string, opts?: Parameters<typeof call>[2]) => call<T>('DELETE', path, opts),
    patch: <T = any>(path: string, opts?: Parameters<typeof call>[2]) => call<T>('PATCH', path, opts),
  };
}

export const validPayment = (over: Record<string, unknown> = {}) => ({
  amount: 125.5,
  currency: 'USD',
  payer_email: 'payer@example.com',
  recipient_email: 'recipient@example.com',
  description: 'Order 1001',
  ...over,
});

/** Poll until `check` returns a value (not undefined) or the time runs out. Waiting, not timing. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
