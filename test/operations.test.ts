import fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, documentedOperations } from '../src/api/app';
import { PAYMENT_EVENTS } from '../src/domain/payment';
import { OPENAPI_FILE, documentText } from '../scripts/openapi';
import { startApiServer as startServer } from '../src/api/server';
import { type ServiceDeps, createServices } from '../src/services';
import { createDb } from '../src/db/knex';
import { createLogger } from '../src/lib/logger';
import { eventually, httpClient, startStack, validPayment, type Stack } from './helpers/stack';

/** The API over use cases built on the given (possibly unreachable) dependencies. */
const startApiServer = (deps: ServiceDeps, port: number) =>
  startServer({ services: createServices(deps), config: deps.config, logger: deps.logger }, port);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with both auth schemes and the error shape', async () => {
    const res = await stack.http.get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(['ApiKey', 'Bearer']);
    const create = res.body.paths['/api/v1/payments'].post;
    const schemas = res.body.components.schemas;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreatePaymentRequest' });
    expect(schemas.CreatePaymentRequest.required).toEqual(['amount', 'currency', 'payer_email', 'recipient_email']);
    expect(create.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(schemas.ErrorResponse.properties.error.required).toEqual(['code', 'message']);
    expect(schemas.ErrorResponse.properties.error.properties.code.enum).toContain('idempotency_conflict');
    expect(schemas.Event.properties.data).toMatchObject({ $ref: '#/components/schemas/Payment' });
    // Every event's envelope, for receivers; every answer's headers.
    expect(Object.keys(res.body.webhooks).sort()).toEqual([...PAYMENT_EVENTS].sort());
    expect(Object.keys(create.responses['201'].headers).sort()).toEqual(['Idempotent-Replayed', 'X-Request-Id']);
    expect(Object.keys(create.responses['401'].headers)).toContain('WWW-Authenticate');
    expect(Object.keys(create.responses['429'].headers)).toContain('Retry-After');
    expect(res.body.paths['/api/v1/auth/login'].post.security).toEqual([]);
  });

  it('documents every route the app serves (a route added without its definition fails here)', async () => {
    // Every router mounted on the app, whatever its prefix, walked as Koa dispatches.
    const app = createApp({ services: stack.services, config: stack.config, logger: createLogger('silent') });
    const served = new Set<string>();
    for (const mw of app.middleware as { router?: { stack: { path: string; methods: string[] }[] } }[]) {
      for (const layer of mw.router?.stack ?? []) {
        for (const m of layer.methods) if (m !== 'HEAD') served.add(`${m.toLowerCase()} ${layer.path.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
    // The reference itself (the document, its page and assets) is the one undocumented part.
    for (const undocumented of ['get /api/v1/openapi.json', 'get /docs', 'get /docs/assets/{file}']) served.delete(undocumented);
    const doc = (await stack.http.get('/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    expect([...served].sort()).toEqual([...documented].sort());
    expect(documented.size).toBe(documentedOperations(stack.config).length);
  });

  it('docs/openapi.json is the document the API serves (npm run openapi rewrites it)', async () => {
    const served = (await stack.http.get('/api/v1/openapi.json')).body;
    expect(JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8'))).toEqual(served);
    expect(fs.readFileSync(OPENAPI_FILE, 'utf8')).toBe(documentText());
  });

  it('serves a readable reference page from local assets', async () => {
    const page = await fetch(`${stack.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'docs-init.js']) {
      const res = await fetch(`${stack.url}/docs/assets/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(50);
    }
    expect((await fetch(`${stack.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});

describe('health, readiness and metrics', () => {
  it('healthz and readyz answer 200 when PostgreSQL and Temporal are reachable', async () => {
    expect((await stack.http.get('/healthz')).status).toBe(200);
    const ready = await stack.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres: 'ok', temporal: 'ok' });
  });

  it('readyz is 503 and API calls are 503 service_unavailable when PostgreSQL is unreachable', async () => {
    const deadDb = createDb('postgres://root@127.0.0.1:1/nothing');
    const api = await startApiServer({ db: deadDb, temporal: stack.client, config: stack.config, logger: createLogger('silent') }, 0);
    try {
      const http = httpClient(api.url);
      const ready = await http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.postgres).toBe('unavailable');
      expect(ready.body.checks.temporal).toBe('ok');
      const list = await http.get('/api/v1/payments', { key: 'svc_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' });
      expect(list.status).toBe(503);
      expect(list.body.error.code).toBe('service_unavailable');
      expect(JSON.stringify(list.body)).not.toMatch(/at .*\.ts/);
    } finally {
      await api.close();
      await deadDb.destroy();
    }
  });

  it('readyz is 503 and a create is 503 when Temporal is unreachable, and nothing is stored', async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 });
    const temporal = new Client({ connection });
    const api = await startApiServer({ db: stack.db, temporal, config: stack.config, logger: createLogger('silent') }, 0);
    try {
      const acct = await stack.newAccount();
      const http = httpClient(api.url);
      const ready = await http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.temporal).toBe('unavailable');
      const created = await http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      expect(created.status).toBe(503);
      expect(created.body.error.code).toBe('service_unavailable');
      expect(await stack.db('payments').where({ account_id: acct.account_id })).toEqual([]);
      // Payments stay readable: the read model holds every state the workflows made durable.
      const open = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      const done = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      await stack.http.post(`/api/v1/payments/${done.body.id}/cancel`, { key: acct.test_api_key });
      const readDone = await http.get(`/api/v1/payments/${done.body.id}`, { key: acct.test_api_key });
      expect(readDone.status).toBe(200);
      expect(readDone.body.status).toBe('cancelled');
      const readOpen = await http.get(`/api/v1/payments/${open.body.id}`, { key: acct.test_api_key });
      expect(readOpen.status).toBe(200);
      expect(readOpen.body.status).toBe('pending_deposit');
    } finally {
      await api.close();
      await connection.close();
    }
  });

  it('a create that failed on our side, retried with its Idempotency-Key, makes exactly one payment', async () => {
    const acct = await stack.newAccount();
    const key = `retry-${Date.now()}`;
    const body = validPayment();
    // First attempt: Temporal out of reach, so the outcome is a 503 and the key stays claimable.
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 200 });
    const down = await startApiServer(
      { db: stack.db, temporal: new Client({ connection }), config: stack.config, logger: createLogger('silent') },
      0,
    );
    try {
      const first = await httpClient(down.url).post('/api/v1/payments', {
        key: acct.test_api_key,
        body,
        headers: { 'Idempotency-Key': key },
      });
      expect(first.status).toBe(503);
    } finally {
      await down.close();
      await connection.close();
    }
    // The retry goes through, under the id the first attempt had reserved.
    const { resource_id: reserved } = await stack.db('idempotency_keys').where({ account_id: acct.account_id, key }).first();
    const second = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body, headers: { 'Idempotency-Key': key } });
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(`pay_${reserved}`);
    // Suppose the second attempt's answer was lost after the workflow started: mark the key failed
    // again, as the middleware does on a 5xx, and retry. Same payment, no second workflow.
    await stack
      .db('idempotency_keys')
      .where({ account_id: acct.account_id, key })
      .update({ status_code: null, response_body: null, failed_at: new Date() });
    const third = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body, headers: { 'Idempotency-Key': key } });
    expect(third.status).toBe(201);
    expect(third.body.id).toBe(second.body.id);
    expect(await stack.db('payments').where({ account_id: acct.account_id }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('metrics: requests by route and status, transitions by event, deliveries by outcome, Temporal worker metrics', async () => {
    const acct = await stack.newAccount();
    const p = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key: acct.test_api_key });
    // Served on API_METRICS_PORT, never on the public port.
    expect((await fetch(`${stack.url}/metrics`)).status).toBe(404);
    // Transitions are counted by the projection activity, which runs just after the answer.
    const text = await eventually(
      async () => {
        const res = await fetch(`${stack.api.metricsUrl}/metrics`);
        expect(res.headers.get('content-type')).toContain('text/plain');
        const body = await res.text();
        return /payment_transitions_total\{event="payment\.deposited"\}/.test(body) ? body : undefined;
      },
      10_000,
      'the deposit counted',
    );
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/api\/v1\/payments\/:id\/deposit",status="200"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/api\/v1\/payments",status="201"\}/);
    expect(text).toMatch(/payment_transitions_total\{event="payment\.deposited"\} \d+/);
    expect(text).toContain('# TYPE webhook_delivery_attempts_total counter');
    expect(text).toContain('# TYPE webhook_delivery_duration_seconds histogram');
    expect(text).toMatch(/^temporal_\w+/m);
  });

  it('every response carries X-Request-Id, and a sane client one is kept', async () => {
    const mine = await stack.http.get('/healthz', { headers: { 'X-Request-Id': 'client-req-123' } });
    expect(mine.headers.get('x-request-id')).toBe('client-req-123');
    const generated = await stack.http.get('/api/v1/payments');
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(generated.body.request_id).toBe(generated.headers.get('x-request-id'));
  });
});
