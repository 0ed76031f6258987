/**
 * Health and readiness, and the API while a dependency is out of reach: /readyz names the one that is
 * down, calls are 503 service_unavailable, nothing half-made is stored, reads of the read model go on,
 * and a create retried with its Idempotency-Key after an outage makes exactly one payment.
 */
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { startApiServer as startServer } from '../src/platform/http/server';
import { createDb } from '../src/platform/database/knex';
import { createLogger } from '../src/platform/lib/logger';
import { type ServiceDeps, createServices } from '../src/platform/services';
import { httpClient, useStack, validPayment } from './helpers/stack';
import { dataConverter } from '../src/platform/worker/dataConverter';

/** The API over use cases built on the given (possibly unreachable) dependencies. */
const startApiServer = (deps: ServiceDeps, port: number) =>
  startServer({ services: createServices(deps), config: deps.config, logger: deps.logger }, port);

const stack = useStack();

describe('health and readiness, with a dependency out of reach', () => {
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
    const temporal = new Client({ connection, dataConverter });
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
      { db: stack.db, temporal: new Client({ connection, dataConverter }), config: stack.config, logger: createLogger('silent') },
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
});
