/**
 * A real stack for one test file: a worker on its own task queue and the API on an ephemeral port,
 * against the shared Temporal dev server and PostgreSQL. Nothing here is mocked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig, type Config } from '../../src/platform/config';
import { createLogger } from '../../src/platform/lib/logger';
import { ephemeralPortRange } from '../../src/platform/lib/net';
import { auditScheduleId } from '../../src/audit/audit.service';
import { type ApiServer, type Services, buildStack } from '../../src/platform/stack';

export interface Stack {
  url: string;
  db: Knex;
  client: Client;
  config: Config;
  taskQueue: string;
  api: ApiServer;
  services: Services;
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

/**
 * The loopback ports test stacks let webhooks reach (WEBHOOK_LOOPBACK_PORTS): the machine's ephemeral
 * range, where every receiver of a test listens (port 0), and 9 and 4567, which tests name as closed
 * receivers; the stack's own ports stay refused inside them (docs/security.md).
 */
export const TEST_LOOPBACK_PORTS = `9,4567,${ephemeralPortRange()}`;

export async function startStack(env: Record<string, string> = {}): Promise<Stack> {
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
    AUDIT_SIGNING_KEY: inject('auditSigningKey'),
    // Tests receive webhooks on loopback, never on the shared dev server's ports; metrics on any free port.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_LOOPBACK_PORTS: TEST_LOOPBACK_PORTS,
    STACK_PORTS: inject('temporalPorts'),
    API_METRICS_PORT: '0',
    ...env,
  });
  const stack = await buildStack({
    config,
    logger: createLogger(config.LOG_LEVEL),
    // As in production: JSON logs (errors only here) and Core's worker metrics, once per test process.
    runtimeLogger: createLogger(process.env.TEST_LOG_LEVEL ?? 'error'),
    worker: { workflowBundlePath: inject('workflowBundlePath') },
    api: { port: 0 },
  });
  const api = stack.api!;
  return {
    url: api.url,
    db: stack.db,
    client: stack.client,
    config,
    taskQueue,
    api,
    services: stack.services,
    http: httpClient(api.url),
    async newAccount() {
      const password = `pw-${randomUUID()}`;
      const created = await stack.services.accounts.createAccount(`user-${randomUUID()}@example.com`, password);
      return { ...created, password };
    },
    stopWorker: () => stack.stopWorker(),
    startWorker: () => stack.startWorker(),
    async stop() {
      // Its head-signing schedule goes with the test's task queue.
      await stack.client.schedule
        .getHandle(auditScheduleId(taskQueue))
        .delete()
        .catch(() => undefined);
      await stack.stop();
    },
  };
}

/**
 * What a value made in `beforeAll` stands for until then: an object whose every property is read from
 * the value once it exists. Reading one earlier (at collection time) is an error naming `what`.
 */
function later<T extends object>(get: () => T | undefined, what: string): T {
  const value = (): T => {
    const v = get();
    if (v === undefined) throw new Error(`${what} is made in beforeAll: use it inside a test or a hook`);
    return v;
  };
  // Spreading and key listing read the value too (`{ ...account }`).
  return new Proxy({} as T, {
    get: (_target, prop) => Reflect.get(value(), prop) as unknown,
    has: (_target, prop) => Reflect.has(value(), prop),
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_target, prop) => {
      const found = Reflect.getOwnPropertyDescriptor(value(), prop);
      return found && { ...found, configurable: true };
    },
  });
}

/**
 * One stack for the enclosing describe block (or the file, at top level): started before its tests with
 * `env` over the test defaults, stopped after them. Use it in tests and hooks as a `Stack`.
 */
export function useStack(opts: { env?: Record<string, string> } = {}): Stack {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(opts.env);
  });
  afterAll(async () => stack?.stop());
  return later(() => stack, 'useStack()');
}

/** A new account on `stack` for the enclosing block, made after the stack started (hooks run in order). */
export function useAccount(stack: Stack): TestAccount {
  let account: TestAccount | undefined;
  beforeAll(async () => {
    account = await stack.newAccount();
  });
  return later(() => account, 'useAccount()');
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

/** The environment of an operator script run against this stack, quiet: it runs in this stack's worker (docs/operations.md). */
export const scriptEnv = (stack: Stack) => ({
  ...process.env,
  DATABASE_URL: stack.config.DATABASE_URL,
  TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
  TEMPORAL_TASK_QUEUE: stack.taskQueue,
  LOG_LEVEL: 'silent',
});

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
