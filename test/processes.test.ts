/**
 * The production shape: `npm run api` and `npm run worker` as separate processes, two of each,
 * against one Temporal server. A worker is killed with SIGKILL half-way; every payment still
 * reaches its final status and every webhook is delivered.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../src/tenants/tenants.repository';
import { createDb } from '../src/platform/database/knex';
import { freePort } from '../src/platform/lib/net';
import { spawnEntry } from './helpers/entryProcess';
import { startReceiver } from './helpers/receiver';
import { eventually, httpClient, validPayment } from './helpers/stack';

interface Proc {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

const taskQueue = `procs-${randomUUID()}`;
const SECRETS = { jwt: randomBytes(32).toString('base64'), webhookKey: randomBytes(32).toString('base64') };
const procs: Proc[] = [];

function start(entry: string, port: number, extra: Record<string, string> = {}): Proc {
  const child = spawnEntry(entry, taskQueue, {
    LOG_LEVEL: 'info',
    WEBHOOK_RETRY_INITIAL_INTERVAL: '200ms',
    WEBHOOK_RETRY_MAX_INTERVAL: '1s',
    WEBHOOK_TIMEOUT: '2s',
    // Shared by every process here: the APIs sign and check tokens, all open webhook secrets.
    SERVICE_JWT_SECRET: SECRETS.jwt,
    WEBHOOK_SECRET_KEY: SECRETS.webhookKey,
    AUDIT_SIGNING_KEY: inject('auditSigningKey'),
    API_METRICS_PORT: '0',
    ...(entry.includes('worker') ? { WORKER_METRICS_PORT: String(port) } : { PORT: String(port), HOST: '127.0.0.1' }),
    ...extra,
  });
  // One buffer per stream, so a line from one is never spliced into a line from the other.
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => (out.stdout = (out.stdout + c).slice(-1_000_000)));
  child.stderr.on('data', (c) => (out.stderr = (out.stderr + c).slice(-1_000_000)));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const proc = { child, port, output: () => `${out.stdout}\n${out.stderr}`, exited };
  procs.push(proc);
  return proc;
}

const up = (port: number, p = '/healthz') =>
  eventually(
    async () =>
      fetch(`http://127.0.0.1:${port}${p}`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    60_000,
    `process on ${port}`,
  );

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

describe('two APIs and two workers as separate processes', () => {
  let apis: Proc[];
  let workers: Proc[];

  beforeAll(async () => {
    workers = [start('src/bin/worker.ts', await freePort()), start('src/bin/worker.ts', await freePort())];
    apis = [start('src/bin/api.ts', await freePort()), start('src/bin/api.ts', await freePort())];
    await Promise.all([...workers, ...apis].map((p) => up(p.port)));
    await Promise.all(apis.map((p) => up(p.port, '/readyz')));
    // A worker's /healthz answers once its metrics port is bound, before it bundles its workflows
    // and polls: a create before then waits for a worker and may answer 503 at its deadline.
    await Promise.all(
      workers.map((w) =>
        eventually(async () => (w.output().includes('"msg":"worker running"') ? true : undefined), 100_000, 'a worker polling'),
      ),
    );
  }, 120_000);

  it('every payment reaches its final status and every webhook arrives, though a worker is SIGKILLed mid-way', async () => {
    const db = createDb(inject('databaseUrl'));
    const acct = await createAccount(db, `procs-${randomUUID()}@example.com`, 'procs-password');
    await db.destroy();
    const receiver = await startReceiver();
    const [a, b] = apis.map((p) => httpClient(`http://127.0.0.1:${p.port}`));
    const key = acct.test_api_key;
    /** A client that retries a transition the way an integrator would: on 503, then checks. */
    const transition = async (api: typeof a, id: string, action: string, expected: string) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const res = await api.post(`/api/v1/payments/${id}/${action}`, { key });
        if (res.status === 200) return res.body.status;
        const now = await api.get(`/api/v1/payments/${id}`, { key });
        if (now.body?.status === expected) return expected;
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(`${action} of ${id} never went through`);
    };
    try {
      expect((await a.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url } })).status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await (i % 2 ? a : b).post('/api/v1/payments', { key, body: validPayment({ amount: i + 1 }) });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
      await Promise.all(ids.map((id, i) => transition(i % 2 ? b : a, id, 'deposit', 'in_custody')));

      // The request id travels in the logs from the API to the workflow to the activity: the
      // service's own, which the request's line relates to the client's (docs/api.md, "Request ids").
      const traceId = (await a.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
      const clientId = `req-trace-${randomUUID()}`;
      const traced = await b.post(`/api/v1/payments/${traceId}/cancel`, { key, headers: { 'X-Request-Id': clientId } });
      expect(traced.status).toBe(200);
      expect(traced.headers.get('x-request-id')).toBe(clientId);
      const parse = (line: string) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return []; // a line still being written
        }
      };
      const logLines = () => procs.flatMap((p) => p.output().split('\n')).flatMap(parse);
      const requestLine = await eventually(
        async () => logLines().find((l) => l.msg === 'request' && l.client_request_id === clientId),
        10_000,
        'the request line naming the client id',
      );
      expect(requestLine).toMatchObject({
        path: `/api/v1/payments/${traceId}/cancel`,
        request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/),
      });
      const requestId = requestLine.request_id as string;
      const lines = await eventually(
        async () => {
          const found = logLines().filter((l) => l.request_id === requestId);
          // Each process's output reaches us through its own pipe, in no set order: wait for all three.
          const wanted = ['request', 'payment transition', 'payment transition recorded'];
          return wanted.every((msg) => found.some((l) => l.msg === msg)) ? found : undefined;
        },
        10_000,
        'request id in API and worker logs',
      );
      expect(lines.find((l) => l.msg === 'payment transition')).toMatchObject({
        request_id: requestId,
        workflowId: traceId,
        to: 'cancelled',
      });
      expect(lines.find((l) => l.msg === 'payment transition recorded')).toMatchObject({ request_id: requestId, payment_id: traceId });
      // The client's id is in no line but the request's.
      expect(logLines().filter((l) => JSON.stringify(l).includes(clientId))).toEqual([requestLine]);

      // Kill a worker while the approvals are being processed.
      const approvals = Promise.all(ids.map((id, i) => transition(i % 2 ? a : b, id, 'approve', 'pending_release')));
      workers[0].child.kill('SIGKILL');
      await workers[0].exited;
      expect(() => process.kill(workers[0].child.pid!, 0)).toThrow(); // gone, not merely orphaned
      await approvals;
      await Promise.all(ids.map((id, i) => transition(i % 2 ? b : a, id, 'release', 'released')));

      for (const id of ids) {
        expect((await a.get(`/api/v1/payments/${id}`, { key })).body.status).toBe('released');
        expect((await b.get(`/api/v1/payments/${id}/events`, { key })).body.data.map((e: any) => e.to)).toEqual([
          'pending_deposit',
          'in_custody',
          'pending_release',
          'released',
        ]);
      }
      // Every (payment, event) pair arrives; duplicates are allowed (at least once), gaps are not.
      const expected = [
        ...ids.flatMap((id) => ['payment.created', 'payment.deposited', 'payment.approved', 'payment.released'].map((e) => `${id} ${e}`)),
        `${traceId} payment.created`,
        `${traceId} payment.cancelled`,
      ].sort();
      const got = await eventually(
        async () => {
          const seen = [...new Set(receiver.received.map((r) => `${r.body.payment_id} ${r.body.event}`))].sort();
          return seen.length === expected.length ? seen : undefined;
        },
        90_000,
        'every webhook',
      );
      expect(got).toEqual(expected);
    } finally {
      await receiver.close();
    }
  }, 180_000);

  it('SIGTERM: an API finishes in-flight requests and exits 0; a worker drains and exits 0', async () => {
    const db = createDb(inject('databaseUrl'));
    const acct = await createAccount(db, `term-${randomUUID()}@example.com`, 'term-password');
    await db.destroy();
    const api = apis[1];
    // A create whose body is still arriving when SIGTERM lands: it is in flight by construction.
    const body = JSON.stringify(validPayment());
    const req = http.request({
      host: '127.0.0.1',
      port: api.port,
      path: '/api/v1/payments',
      method: 'POST',
      headers: { 'X-API-Key': acct.test_api_key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 300));
    api.child.kill('SIGTERM');
    await eventually(async () => (api.output().includes('finishing requests in flight') ? true : undefined), 10_000, 'shutdown to begin');
    req.end(body.slice(10));
    const res = await response;
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending_deposit');
    expect(await api.exited).toBe(0);

    const worker = workers[1];
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('worker drained and stopped');
  }, 60_000);
});
