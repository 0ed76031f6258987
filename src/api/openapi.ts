/**
 * The OpenAPI 3.1 document, written from the same zod schemas that validate requests, so the
 * reference cannot drift from the behaviour. `test/operations.test.ts` checks every route is here; `test/openapiExamples.test.ts` that every example is valid.
 */
import { z } from 'zod';
import { CLIENT_ACTIONS, allowedFrom, TRANSITIONS } from '../domain/payment';
import { EXAMPLES, errorExample } from './examples';
import * as S from './schemas';

type Schema = z.ZodType;
interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth?: boolean; // default true
  body?: Schema;
  query?: z.ZodObject;
  responses: Record<number, { description: string; schema?: Schema }>;
}

const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, { description: ERROR_TEXT[c], schema: S.ErrorResponse }]));
/** Each starts with the error code(s) the status carries; `test/openapiExamples.test.ts` checks each example's code is named. */
const ERROR_TEXT: Record<number, string> = {
  400: 'invalid_request: field-level details',
  401: 'unauthorized: missing or wrong credentials',
  403: 'forbidden: a credential may only create keys of its own mode',
  404: 'not_found (also for resources of another account or mode)',
  409: 'invalid_transition (names the current status) or idempotency_conflict',
  413: 'payload_too_large: body larger than 100 KB',
  415: 'unsupported_media_type: body is not application/json',
  429: 'rate_limited, with Retry-After',
  503: 'service_unavailable: Temporal or PostgreSQL unreachable',
};
/** A create's only 409: it has no status to refuse a transition from. */
const IDEMPOTENCY_CONFLICT = {
  description: 'idempotency_conflict: the Idempotency-Key was used with a different request',
  schema: S.ErrorResponse,
};
const common = [401, 429, 503];

function transitionOps(): Operation[] {
  return CLIENT_ACTIONS.map((action) => {
    const to = [...new Set(TRANSITIONS.filter((t) => t.action === action).map((t) => t.to))].join(' or ');
    return {
      method: 'post' as const,
      path: `/api/v1/payments/{id}/${action}`,
      tag: 'Payments',
      summary: `${action[0].toUpperCase()}${action.slice(1)} a payment`,
      description: `Allowed from ${allowedFrom(action).join(', ')}; moves it to ${to}. Any other status: 409 invalid_transition.`,
      body: action === 'resolve' ? S.ResolveRequest : action === 'refund' ? S.RefundRequest : S.TransitionRequest,
      responses: { 200: { description: 'The updated payment', schema: S.Payment }, ...errors(400, 404, 409, ...common) },
    };
  });
}

export const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/api/v1/auth/login',
    tag: 'Auth',
    summary: 'Log in; the token lasts one hour',
    auth: false,
    body: S.LoginRequest,
    responses: { 200: { description: 'A bearer token', schema: S.LoginResponse }, ...errors(400, 401, 429) },
  },
  {
    method: 'post',
    path: '/api/v1/payments',
    tag: 'Payments',
    summary: 'Create a payment (starts its workflow)',
    body: S.CreatePaymentRequest,
    responses: {
      201: { description: 'The payment, status pending_deposit', schema: S.Payment },
      ...errors(400, 413, 415, ...common),
      409: IDEMPOTENCY_CONFLICT,
    },
  },
  {
    method: 'get',
    path: '/api/v1/payments',
    tag: 'Payments',
    summary: 'List payments, newest first',
    query: S.ListPaymentsQuery,
    responses: { 200: { description: 'A page of payments', schema: S.PaymentList }, ...errors(400, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/payments/{id}',
    tag: 'Payments',
    summary: 'Read a payment (from its workflow)',
    responses: { 200: { description: 'The payment', schema: S.Payment }, ...errors(404, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/payments/{id}/events',
    tag: 'Payments',
    summary: "A payment's history",
    responses: { 200: { description: 'Every transition, oldest first', schema: S.PaymentHistory }, ...errors(404, ...common) },
  },
  ...transitionOps(),
  {
    method: 'get',
    path: '/api/v1/payments/{id}/ledger',
    tag: 'Ledger',
    summary: "A payment's ledger entries, oldest first",
    description: 'One entry per movement of money (deposit, refund, release, split), each with postings that sum to zero.',
    responses: { 200: { description: 'Every entry of the payment', schema: S.PaymentLedger }, ...errors(404, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/balance',
    tag: 'Ledger',
    summary: 'Balances per currency of the caller’s mode',
    description:
      'deposited = held + released (net to recipients) + refunded + fees; kept beside the ledger entries in the same transaction.',
    responses: { 200: { description: 'The balances', schema: S.Balance }, ...errors(400, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/ledger_entries',
    tag: 'Ledger',
    summary: 'List ledger entries, newest first',
    query: S.ListLedgerEntriesQuery,
    responses: { 200: { description: 'A page of ledger entries', schema: S.LedgerEntryList }, ...errors(400, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/events',
    tag: 'Events',
    summary: 'List events, newest first (kept at least 30 days)',
    description: 'Every event a payment emitted, whether or not a webhook was configured: recover what a receiver missed.',
    query: S.ListEventsQuery,
    responses: { 200: { description: 'A page of events', schema: S.EventList }, ...errors(400, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/events/{id}',
    tag: 'Events',
    summary: 'Read one event',
    responses: { 200: { description: 'The event', schema: S.Event }, ...errors(404, ...common) },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/configure',
    tag: 'Webhooks',
    summary: 'Configure a webhook endpoint',
    body: S.ConfigureWebhookRequest,
    responses: {
      201: { description: 'The configuration with its secret (shown once)', schema: S.WebhookConfigured },
      ...errors(400, ...common),
    },
  },
  {
    method: 'get',
    path: '/api/v1/webhooks',
    tag: 'Webhooks',
    summary: 'List webhook configurations (secrets never shown)',
    responses: { 200: { description: 'Configurations', schema: S.WebhookList }, ...errors(...common) },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend',
    tag: 'Webhooks',
    summary: 'Resend a delivery: a new series of attempts, the same webhook-id',
    responses: { 202: { description: 'Resend started', schema: S.WebhookTestSent }, ...errors(404, ...common) },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/recover',
    tag: 'Webhooks',
    summary: 'Resend every failed delivery since a time',
    body: S.RecoverRequest,
    responses: { 202: { description: 'The deliveries resent', schema: S.WebhookRecovered }, ...errors(400, 404, ...common) },
  },
  {
    method: 'patch',
    path: '/api/v1/webhooks/{id}',
    tag: 'Webhooks',
    summary: 'Turn a configuration on (after a 410 disabled it) or off',
    body: S.UpdateWebhookRequest,
    responses: { 200: { description: 'The configuration', schema: S.Webhook }, ...errors(400, 404, ...common) },
  },
  {
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    tag: 'Webhooks',
    summary: 'Delete a configuration; pending retries stop',
    responses: { 200: { description: 'Deleted', schema: S.DeletedResponse }, ...errors(404, ...common) },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret; the previous one keeps signing during the overlap',
    body: S.RotateSecretRequest,
    responses: { 200: { description: 'The configuration with its new secret', schema: S.WebhookConfigured }, ...errors(404, ...common) },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/test',
    tag: 'Webhooks',
    summary: 'Send a payment.test event',
    responses: { 202: { description: 'Delivery started', schema: S.WebhookTestSent }, ...errors(404, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    tag: 'Webhooks',
    summary: "Delivery log: every attempt with time, status code, duration, error and the answer's first 1 KB",
    query: S.ListDeliveriesQuery,
    responses: { 200: { description: 'Deliveries, newest first', schema: S.WebhookDeliveryList }, ...errors(404, ...common) },
  },
  {
    method: 'post',
    path: '/api/v1/test_helpers/payments/{id}/advance',
    tag: 'Test helpers',
    summary: "Move a test-mode payment's clock forward (test clock)",
    description:
      'Due timers fire now, with their normal history entries and webhooks: the deposit deadline cancels, an auto-release releases. A live payment answers 404.',
    body: S.AdvanceClockRequest,
    responses: { 200: { description: 'The payment after its due timers fired', schema: S.Payment }, ...errors(400, 404, ...common) },
  },
  {
    method: 'post',
    path: '/api/v1/api-keys',
    tag: 'API keys',
    summary: "Create an API key of the caller's mode (shown once)",
    body: S.CreateApiKeyRequest,
    responses: { 201: { description: 'The key', schema: S.ApiKeyCreated }, ...errors(400, 403, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/api-keys',
    tag: 'API keys',
    summary: "List the mode's API keys",
    responses: { 200: { description: 'Keys (last four characters only)', schema: S.ApiKeyList }, ...errors(...common) },
  },
  {
    method: 'delete',
    path: '/api/v1/api-keys/{id}',
    tag: 'API keys',
    summary: 'Revoke an API key',
    responses: { 200: { description: 'Revoked', schema: S.DeletedResponse }, ...errors(404, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/audit/public_key',
    tag: 'Audit',
    summary: 'The Ed25519 public key that signs tree heads',
    responses: { 200: { description: 'The raw 32-byte key', schema: S.AuditPublicKey }, ...errors(...common) },
  },
  {
    method: 'get',
    path: '/api/v1/audit/tree_head',
    tag: 'Audit',
    summary: 'The latest signed tree head of the custody trail (RFC 9162 Merkle tree)',
    description: 'Signed by a Temporal Schedule every AUDIT_HEAD_INTERVAL. 404 only before the first head is signed.',
    responses: { 200: { description: 'The tree head', schema: S.TreeHead }, ...errors(404, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/audit/consistency',
    tag: 'Audit',
    summary: 'A consistency proof between two tree sizes (RFC 9162 §2.1.4)',
    description:
      'Proves the tree of size `to` extends the tree of size `from` without changing it. `to` is at most the latest signed size.',
    query: S.AuditConsistencyQuery,
    responses: { 200: { description: 'The proof', schema: S.ConsistencyProof }, ...errors(400, 404, ...common) },
  },
  {
    method: 'get',
    path: '/api/v1/payments/{id}/proof',
    tag: 'Audit',
    summary: "A payment's custody-trail leaves, each with its inclusion proof against the latest signed tree head",
    description:
      'Every status transition, ledger entry and webhook delivery attempt of the payment that the latest signed head covers. Verify offline with examples/verify-proof.ts.',
    responses: { 200: { description: 'The leaves and the head', schema: S.PaymentProof }, ...errors(404, ...common) },
  },
  {
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Liveness',
    auth: false,
    responses: { 200: { description: 'The process is up', schema: S.Health } },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness: PostgreSQL and Temporal reachable',
    auth: false,
    responses: {
      200: { description: 'Ready', schema: S.Readiness },
      503: { description: 'A dependency is unreachable', schema: S.Readiness },
    },
  },
];

const json = (schema: Schema, io: 'input' | 'output') => z.toJSONSchema(schema, { io, unrepresentable: 'any' });

/** What `{id}` is under each collection, and `{delivery_id}`. */
const ID_DESCRIPTIONS: Record<string, string> = {
  payments: 'The payment id (pay_…), as POST /api/v1/payments or GET /api/v1/payments answered it',
  events: 'The event id (evt_…), from GET /api/v1/events',
  webhooks: 'The webhook configuration id (wh_…), from POST /api/v1/webhooks/configure or GET /api/v1/webhooks',
  'api-keys': 'The API key id (key_…), from POST or GET /api/v1/api-keys',
};
function pathParameterDescription(path: string, param: string): string | undefined {
  if (param === 'delivery_id') return 'The delivery id (dlv_…), from GET /api/v1/webhooks/{id}/deliveries';
  const collection = /^\/api\/v1\/(?:test_helpers\/)?([\w-]+)\//.exec(path)?.[1];
  return param === 'id' && collection ? ID_DESCRIPTIONS[collection] : undefined;
}

/** The example for a response: the error format's for errors, the schema's own otherwise. */
function responseExample(status: number, response: { description: string; schema?: Schema }): unknown {
  const { schema } = response;
  if (response === IDEMPOTENCY_CONFLICT) return errorExample(409, 'idempotency_conflict');
  if (schema === S.ErrorResponse) return errorExample(status);
  if (schema === S.Readiness && status === 503) return { status: 'unavailable', checks: { postgres: 'ok', temporal: 'unavailable' } };
  return schema && EXAMPLES.get(schema);
}

let cached: object | undefined;

export function openApiDocument(): object {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters: unknown[] = [];
    for (const name of op.path.match(/\{(\w+)\}/g) ?? []) {
      const param = name.slice(1, -1);
      parameters.push({
        name: param,
        in: 'path',
        required: true,
        description: pathParameterDescription(op.path, param),
        schema: { type: 'string' },
      });
    }
    if (op.query) {
      const shape = json(op.query, 'input') as { properties?: Record<string, { description?: string }>; required?: string[] };
      for (const [name, schema] of Object.entries(shape.properties ?? {})) {
        parameters.push({ name, in: 'query', required: shape.required?.includes(name) ?? false, description: schema.description, schema });
      }
    }
    if (op.auth !== false && op.method === 'post') {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 255 },
        description: 'Same key and body replays the first response; a different body is 409 idempotency_conflict',
      });
    }
    if (op.auth !== false) {
      parameters.push({
        name: 'X-Service-Mode',
        in: 'header',
        required: false,
        schema: { type: 'string', enum: ['test', 'live'], default: 'test' },
        description: 'Mode of a bearer-token request (API keys carry their mode in their prefix)',
      });
    }
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      operationId: `${op.method}${op.path
        .replace(/\/api\/v1/, '')
        .replace(/[{}]/g, '')
        .replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase())}`,
      ...(parameters.length ? { parameters } : {}),
      ...(op.auth === false ? { security: [] } : {}),
      ...(op.body
        ? {
            requestBody: {
              // The API reads a missing body as {}: where that is valid (a transition's reason), the body is optional.
              required: !op.body.safeParse({}).success,
              content: { 'application/json': { schema: json(op.body, 'input'), example: EXAMPLES.get(op.body) } },
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries(op.responses).map(([status, r]) => [
          status,
          {
            description: r.description,
            ...(r.schema
              ? {
                  content: { 'application/json': { schema: json(r.schema, 'output'), example: responseExample(Number(status), r) } },
                }
              : {}),
          },
        ]),
      ),
    };
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Payment Custody Service',
      version: '1.0.0',
      description:
        'Payments held in custody and released, cancelled or refunded. Every error is `{"error":{code,message,details?},"request_id"}`; every response carries `X-Request-Id`. Amounts are JSON numbers in major units, never more fractional digits than the currency has.',
    },
    servers: [{ url: '/' }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'svc_test_… keys act in test mode, svc_live_… in live mode',
        },
        Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'From POST /api/v1/auth/login; lasts one hour' },
      },
    },
    paths,
  };
  return cached;
}

/** A reference page rendered by Swagger UI from local assets (no CDN). */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Payment Custody Service — API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body></html>`;
}

/** Kept in a file of its own so a strict Content-Security-Policy needs no inline script. */
export const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true });`;
