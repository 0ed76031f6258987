/**
 * The OpenAPI document the API serves: its shape, every served route documented, the committed copy in
 * docs/openapi.json identical, the reference page served from local assets, and its examples accepted
 * by the running API.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, documentText } from '../scripts/openapi';
import { createApp } from '../src/platform/http/app';
import { documentedOperations } from '../tools/documentedOperations';
import * as S from '../src/platform/http/schemas';
import { WEBHOOK_EVENTS } from '../src/webhooks/webhookEvents.rules';
import { createLogger } from '../src/platform/lib/logger';
import { useStack } from './helpers/stack';

const stack = useStack();

/** The create request's example in the document the API serves: what Swagger's "Try it out" sends as it is. */
const createExample = async () =>
  (await stack.http.get('/api/v1/openapi.json')).body.paths['/api/v1/payments'].post.requestBody.content['application/json'].example;

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with both auth schemes and the error shape', async () => {
    const res = await stack.http.get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(['ApiKey', 'Bearer']);
    const create = res.body.paths['/api/v1/payments'].post;
    const schemas = res.body.components.schemas;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreatePaymentRequest' });
    // recipient_email, or a recipient in its place (docs/concepts.md, "Recipients").
    expect(schemas.CreatePaymentRequest.required).toEqual(['amount', 'currency', 'payer_email']);
    expect(create.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(schemas.ErrorResponse.properties.error.required).toEqual(['code', 'message']);
    expect(schemas.ErrorResponse.properties.error.properties.code.enum).toContain('idempotency_conflict');
    // One outbox for every object (docs/webhooks.md): an event's data is its payment, payout, recipient or bank credit, each the named component.
    expect(schemas.Event.properties.data.anyOf).toEqual(
      ['Payment', 'Payout', 'Recipient', 'BankCredit'].map((name) => expect.objectContaining({ $ref: `#/components/schemas/${name}` })),
    );
    // Every event's envelope, for receivers; every answer's headers.
    expect(Object.keys(res.body.webhooks).sort()).toEqual([...WEBHOOK_EVENTS].sort());
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

  it('says released is gross of fees wherever it defines it (docs/money.md), never net to recipients', async () => {
    const doc = (await stack.http.get('/api/v1/openapi.json')).body as unknown;
    const texts: string[] = [];
    const walk = (v: unknown, key?: string) => {
      if (typeof v === 'string' && (key === 'description' || key === 'summary')) texts.push(v);
      else if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) walk(child, k);
    };
    walk(doc);
    // The changelog may say what `released` was; no other text may say it is net.
    const current = texts.filter((t) => !t.includes('**1.1.0**'));
    expect(current.filter((t) => /net to recipients|released\b[^.;]{0,20}\bnet\b(?! of| \+)/i.test(t))).toEqual([]);
    const balance = (doc as { paths: Record<string, { get: { description: string } }> }).paths['/api/v1/balance'].get.description;
    expect(balance).toContain('deposited = held + released + refunded');
    expect(balance).toContain('released = released_net + fees');
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

  it('the create example, posted as it is, makes a payment (201)', async () => {
    const acct = await stack.newAccount();
    const example = await createExample();
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: example });
    expect(res.status).toBe(201);
    expect(S.Payment.parse(res.body)).toMatchObject({ status: 'pending_deposit', amount: 125.5, currency: 'USD' });
  });

  it('the list answers carry has_more as their schemas say', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const p = await stack.http.post('/api/v1/payments', {
      key,
      body: S.CreatePaymentFields.parse(await createExample()),
    });
    expect(S.PaymentHistory.parse((await stack.http.get(`/api/v1/payments/${p.body.id}/events`, { key })).body).has_more).toBe(false);
    expect(S.ApiKeyList.parse((await stack.http.get('/api/v1/api-keys', { key })).body).has_more).toBe(false);
    expect(S.WebhookList.parse((await stack.http.get('/api/v1/webhooks', { key })).body).has_more).toBe(false);
  });
});
