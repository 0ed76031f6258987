/**
 * Two `npm run worker` on one host: the second one's taken metrics port is a clear start-up error
 * before it polls for anything, WORKER_METRICS_PORT=0 picks a free port and says which, and the
 * listener binds HOST alone.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../src/platform/lib/net';
import { spawnEntry } from './helpers/entryProcess';
import { eventually } from './helpers/stack';

const taskQueue = `metrics-port-${randomUUID()}`;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await gone;
  }
});

function worker(metricsPort: number, env: Record<string, string> = {}) {
  const child = spawnEntry('src/bin/worker.ts', taskQueue, {
    ...env,
    WORKER_METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    AUDIT_SIGNING_KEY: inject('auditSigningKey'),
  });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => (out.stdout += c));
  child.stderr.on('data', (c) => (out.stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** The parsed 'worker running' log line, once written. */
  const running = () =>
    out.stdout
      .split('\n')
      .filter((l) => l.includes('"worker running"'))
      .map((l) => JSON.parse(l))[0] as { metricsPort: number } | undefined;
  return { child, out, exited, running };
}

describe('npm run worker: the metrics port', () => {
  it('a second worker on the same WORKER_METRICS_PORT stops at start-up, naming the setting, before polling', async () => {
    const port = await freePort();
    const first = worker(port);
    await eventually(async () => first.running(), 60_000, 'the first worker to run');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    const second = worker(port);
    expect(await second.exited).not.toBe(0);
    expect(second.out.stderr).toContain(`port ${port} is in use: set WORKER_METRICS_PORT to a free port`);
    expect(second.out.stderr).not.toMatch(/\n\s+at /);
    expect(second.running()).toBeUndefined(); // never got as far as polling
    // The first one is unaffected.
    expect(first.child.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 120_000);

  it('WORKER_METRICS_PORT=0 serves metrics on a free port and logs which', async () => {
    const w = worker(0);
    const line = await eventually(
      async () => w.running() ?? (w.child.exitCode !== null ? Promise.reject(new Error(w.out.stderr)) : undefined),
      60_000,
      'the worker to run',
    );
    expect(line.metricsPort).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${line.metricsPort}/healthz`)).status).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${line.metricsPort}/metrics`)).text()).toContain('payment_transitions_total');
  }, 120_000);

  it('listens on HOST only, as the API and its metrics do', async () => {
    // Another loopback address: reachable here, yet not the one the default HOST names.
    const w = worker(0, { HOST: '127.0.0.2' });
    const line = await eventually(
      async () => w.running() ?? (w.child.exitCode !== null ? Promise.reject(new Error(w.out.stderr)) : undefined),
      60_000,
      'the worker to run',
    );
    expect((await fetch(`http://127.0.0.2:${line.metricsPort}/healthz`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${line.metricsPort}/healthz`)).rejects.toThrow();
  }, 120_000);
});
