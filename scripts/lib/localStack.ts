/**
 * A throw-away local stack for scripts (history recording, benchmarks): a dev server on a free
 * port, a worker and the API, against DATABASE_URL (default: the test database).
 */
import { randomBytes } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import { connectClient, startApiServer } from '../../src/bootstrap';
import { DEFAULT_TEST_DATABASE_URL, loadConfig } from '../../src/config';
import { createAccount } from '../../src/db/accounts';
import { createDb, migrate } from '../../src/db/knex';
import { createLogger } from '../../src/lib/logger';
import { freePort } from '../../src/lib/net';
import { startDevServer } from '../../src/lib/temporalDevServer';
import { installRuntime } from '../../src/worker/runtime';
import { createWorker } from '../../src/worker/worker';

export interface LocalStack {
  apiUrl: string;
  temporalAddress: string;
  client: Awaited<ReturnType<typeof connectClient>>;
  testKey: string;
  /** The dev server's process id, when it was spawned here (undefined with the SDK's download). */
  devServerPid?: number;
  databaseUrl: string;
}

export async function withLocalStack<T>(env: Record<string, string>, fn: (stack: LocalStack) => Promise<T>): Promise<T> {
  const logger = createLogger('error');
  await installRuntime(logger);
  const server = await startDevServer({ port: await freePort(), headless: true });
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: server.address,
    LOG_LEVEL: 'error',
    // A throw-away stack: fresh secrets each run, metrics on any free port.
    SERVICE_JWT_SECRET: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    API_METRICS_PORT: '0',
    ...env,
  });
  const db = createDb(config.DATABASE_URL);
  await migrate(db);
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await createWorker({ connection, db, config, logger });
  const client = await connectClient(server.address, config.TEMPORAL_NAMESPACE);
  const api = await startApiServer({ db, temporal: client, config, logger }, 0);
  try {
    const acct = await createAccount(db, `script-${Date.now()}@example.com`, 'script-password');
    return await worker.runUntil(
      fn({
        apiUrl: api.url,
        temporalAddress: server.address,
        client,
        testKey: acct.test_api_key,
        devServerPid: server.pid,
        databaseUrl: config.DATABASE_URL!,
      }),
    );
  } finally {
    await api.close();
    await client.connection.close();
    await connection.close();
    await db.destroy();
    await server.stop();
  }
}

/** POST to the API with the test key; throws on a non-2xx answer. */
export function apiPoster(apiUrl: string, key: string) {
  return async (path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${apiUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
}
