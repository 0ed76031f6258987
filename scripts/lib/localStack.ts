/**
 * A throw-away local stack for scripts (history recording, benchmarks): a dev server on a free
 * port, a worker and the API, against DATABASE_URL (default: the test database).
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../src/platform/config';
import { createLogger } from '../../src/platform/lib/logger';
import { ephemeralPortRange, freePort } from '../../src/platform/lib/net';
import { buildStack } from '../../src/platform/stack';
import { DEFAULT_TEST_DATABASE_URL } from '../../tools/testSupport';

export interface LocalStack {
  apiUrl: string;
  temporalAddress: string;
  client: Client;
  testKey: string;
  /** The dev server's process id, when it was spawned here (undefined with the SDK's download). */
  devServerPid?: number;
  databaseUrl: string;
}

export async function withLocalStack<T>(env: Record<string, string>, fn: (stack: LocalStack) => Promise<T>): Promise<T> {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL,
    LOG_LEVEL: 'error',
    // A throw-away stack: fresh secrets each run, metrics on any free port.
    SERVICE_JWT_SECRET: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    AUDIT_SIGNING_KEY: process.env.AUDIT_SIGNING_KEY ?? randomBytes(32).toString('base64'),
    API_METRICS_PORT: '0',
    // Its receivers are on loopback (never on the stack's own ports, which it learns as it starts).
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_LOOPBACK_PORTS: ephemeralPortRange(),
    ...env,
  });
  const stack = await buildStack({
    config,
    logger: createLogger('error'),
    devServer: { port: await freePort(), headless: true },
    migrate: true,
    worker: {},
    api: { port: 0 },
  });
  try {
    const acct = await stack.services.accounts.createAccount(`script-${Date.now()}@example.com`, 'script-password');
    const stopped = stack.workerRunning!.then(() => Promise.reject(new Error('the worker stopped before the work was done')));
    return await Promise.race([
      fn({
        apiUrl: stack.api!.url,
        temporalAddress: stack.temporalAddress,
        client: stack.client,
        testKey: acct.test_api_key,
        devServerPid: stack.devServer?.pid,
        databaseUrl: config.DATABASE_URL!,
      }),
      stopped,
    ]);
  } finally {
    await stack.stop();
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
