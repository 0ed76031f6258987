/**
 * The OpenAPI 3.1 document, written from the routes' own definitions (src/api/registry.ts) and
 * the zod schemas that validate requests, so the reference cannot drift from the behaviour. Named
 * schemas become components; refusals and their texts come from the error catalogue.
 */
import { z } from 'zod';
import { PAYMENT_EVENTS } from '../domain/paymentTypes';
import { PAYOUT_EVENTS } from '../domain/payout';
import { ERRORS, type ErrorCode, errorExample } from './errorCatalogue';
import { components, exampleOf } from './components';
import type { Operation, ResponseSpec } from './registry';
import { PAYOUT_ENVELOPES, RecipientUpdatedEvent, WEBHOOK_ENVELOPES, webhookSchemaName } from './schemas';

type Json = Record<string, unknown>;
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/**
 * The named schemas (src/api/components.ts): the document's components. A schema built per app
 * (the create body, which holds its maximum amount) is named by the operations' own instance.
 */
function namedSchemas(operations: readonly Operation[]): Map<z.ZodType, string> {
  const byId = new Map<string, z.ZodType>([...components._idmap].map(([id, schema]) => [id, schema as z.ZodType]));
  for (const op of operations)
    for (const schema of [op.bodySchema, ...Object.values(op.responses).map((r) => r.schema)]) {
      const id = schema && components.get(schema)?.id;
      if (schema && id) byId.set(id, schema);
    }
  return new Map([...byId].map(([id, schema]) => [schema, id]));
}

/** The components: each named schema as its requests (input) or its answers (output) see it. */
function componentSchemas(named: Map<z.ZodType, string>, requestSchemas: Set<z.ZodType>): Record<string, Json> {
  const convert = (io: 'input' | 'output') => {
    const registry = z.registry<{ id: string }>();
    for (const [schema, id] of named) registry.add(schema, { id });
    return z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` }).schemas as Record<
      string,
      Json
    >;
  };
  const input = convert('input');
  const output = convert('output');
  const schemas: Record<string, Json> = {};
  for (const [schema, id] of [...named].sort((a, b) => a[1].localeCompare(b[1]))) {
    const { $schema: _s, $id: _i, ...rest } = (requestSchemas.has(schema) ? input : output)[id];
    schemas[id] = rest;
  }
  return schemas;
}

const HEADERS = {
  XRequestId: {
    description: "This request's id (a client-sent X-Request-Id is kept if it is 1-128 of A-Z a-z 0-9 . _ : -); also in every error body",
    required: true,
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  RetryAfter: { description: 'Seconds to wait before retrying', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  WWWAuthenticate: { description: 'The scheme to authenticate with', required: true, schema: { type: 'string' } },
} as const;
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

function responseHeaders(op: Operation, codes: readonly ErrorCode[] = []): Json {
  const headers: Json = { 'X-Request-Id': headerRef('XRequestId') };
  if (op.idempotent) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  for (const code of codes) {
    const entry = ERRORS[code] as { headers?: readonly string[] };
    for (const h of entry.headers ?? []) headers[h] = headerRef(h === 'Retry-After' ? 'RetryAfter' : 'WWWAuthenticate');
  }
  return headers;
}

/** The error answers an operation can give, one per status, each naming its codes. */
function errorResponses(op: Operation): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of op.errorCodes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Record<string, Json> = {};
  for (const [status, codes] of byStatus) {
    const examples =
      codes.length === 1
        ? { example: errorExample(codes[0]) }
        : { examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: errorExample(c) }])) };
    out[status] = {
      description: codes.map((c) => `${c}: ${ERRORS[c].description}`).join('; or '),
      headers: responseHeaders(op, codes),
      content: { 'application/json': { schema: ref('ErrorResponse'), ...examples } },
    };
  }
  return out;
}

function operationId(op: Operation): string {
  return `${op.method}${op.openApiPath
    .replace(/\/api\/v1/, '')
    .replace(/[{}]/g, '')
    .replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase())}`;
}

function parameters(op: Operation): Json[] {
  const out: Json[] = op.params.map((p) => ({
    name: p.name,
    in: 'path',
    required: true,
    description: p.description,
    schema: { type: 'string' },
  }));
  if (op.query) {
    const shape = z.toJSONSchema(op.query, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, { description?: string }>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(shape.properties ?? {})) {
      out.push({ name, in: 'query', required: shape.required?.includes(name) ?? false, description: schema.description, schema });
    }
  }
  if (op.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 255 },
      description:
        'The same key and request (the same JSON, whatever its spacing or key order) replays the first answer; another request is 409 idempotency_conflict. Kept 24 hours.',
    });
  }
  if (op.auth) {
    out.push({
      name: 'X-Service-Mode',
      in: 'header',
      required: false,
      schema: { type: 'string', enum: ['test', 'live'], default: 'test' },
      description: 'Mode of a bearer-token request (API keys carry their mode in their prefix)',
    });
  }
  return out;
}

function responseContent(r: ResponseSpec, named: Map<z.ZodType, string>): Json {
  const id = named.get(r.schema);
  if (!id) throw new Error(`response schema for "${r.description}" is not a named component (src/api/components.ts)`);
  return { 'application/json': { schema: ref(id), example: r.example ?? exampleOf(r.schema) } };
}

const cache = new WeakMap<readonly Operation[], object>();

/** The document for these operations (the app's own, see `documentedOperations`). */
export function openApiDocument(operations: readonly Operation[]): object {
  const cached = cache.get(operations);
  if (cached) return cached;
  const named = namedSchemas(operations);
  const requestSchemas = new Set(operations.flatMap((op) => (op.bodySchema ? [op.bodySchema] : [])));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params = parameters(op);
    const body = op.bodySchema;
    const bodyId = body && named.get(body);
    if (body && !bodyId) throw new Error(`${op.openApiPath}: its body schema is not a named component (src/api/components.ts)`);
    paths[op.openApiPath] ??= {};
    paths[op.openApiPath][op.method] = {
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      operationId: operationId(op),
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(params.length ? { parameters: params } : {}),
      ...(op.auth ? {} : { security: [] }),
      ...(body && bodyId
        ? {
            requestBody: {
              // The API reads a missing body as {}: where that is valid (a transition's reason), the body is optional.
              required: !body.safeParse({}).success,
              content: { 'application/json': { schema: ref(bodyId), example: op.bodyExample ?? exampleOf(body) } },
            },
          }
        : {}),
      ...(op.rawBody
        ? {
            requestBody: {
              required: true,
              description: op.rawBody.description,
              content: { [op.rawBody.contentType]: { schema: { type: 'string' }, example: op.rawBody.example } },
            },
          }
        : {}),
      responses: {
        ...Object.fromEntries(
          Object.entries(op.responses).map(([status, r]) => [
            status,
            { description: r.description, headers: responseHeaders(op), content: responseContent(r, named) },
          ]),
        ),
        ...errorResponses(op),
      },
    };
  }
  const webhookSchemas: [string, string, unknown][] = [
    ...PAYMENT_EVENTS.map((event): [string, string, unknown] => [event, webhookSchemaName(event), exampleOf(WEBHOOK_ENVELOPES[event])]),
    ['recipient.updated', 'RecipientUpdatedEvent', exampleOf(RecipientUpdatedEvent)],
    ...PAYOUT_EVENTS.map((event): [string, string, unknown] => [event, webhookSchemaName(event), exampleOf(PAYOUT_ENVELOPES[event])]),
  ];
  const webhooks = Object.fromEntries(
    webhookSchemas.map(([event, schemaName, example]) => [
      event,
      {
        post: {
          summary: event,
          description:
            'Sent to each configuration subscribed to this event, signed (docs/webhooks.md: webhook-id, webhook-timestamp, webhook-signature and X-Service-Signature). Answer 2xx within the timeout; anything else is retried; 410 disables the configuration.',
          operationId: `webhook${schemaName}`,
          tags: ['Webhooks'],
          security: [],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(schemaName), example } },
          },
          responses: {
            '200': { description: 'Received (any 2xx)' },
            '410': { description: 'Gone: the service disables this configuration' },
          },
        },
      },
    ]),
  );
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'Payment Custody Service',
      version: '1.3.0',
      description: [
        'Payments held in custody and released, cancelled or refunded. Every error is `{"error":{code,message,details?},"request_id"}`; every response carries `X-Request-Id`. Amounts are JSON numbers in major units, never more fractional digits than the currency has.',
        '',
        '## Changelog',
        '',
        '- **1.3.0**: additive. `POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend` while the series waits between attempts runs its next attempt now (same series, numbered after the last); its 202 carries `attempt`, the number of the attempt that runs. 409 `delivery_in_progress` only while an attempt is in flight.',
        '- **1.2.0**: milestones, additive (docs/concepts.md, "Deals paid in stages"). `POST /api/v1/payments` takes optional `milestones` (1 to 50 parts of the amount, summing to it); every payment shows `milestones` (one of the whole amount unless created with them). History entries and ledger entries carry `milestone_id`. New routes `POST /api/v1/payments/{id}/milestones/{ms}/approve`, `release`, `refund`, `dispute` and `resolve`; new events `payment.milestone_approved`, `payment.milestone_released` and `payment.milestone_disputed` (payments created with milestones only), whose envelope adds `milestone`. A payment-level partial refund or split while several milestones hold money answers 409 `invalid_transition`. A payment-level action is allowed while some milestone may take it, acting on each that may. A 409 `invalid_transition` on a milestone\'s route lists that milestone\'s actions in `details.allowed_actions` and names it in `details.milestone_id`.',
        "- **1.1.0**: `released` means one amount everywhere, gross of fees, as a payment's `amount_released`. In `GET /api/v1/balance`, `released` was net of fees and is now gross (= `released_net` + `fees`); the net amount is the new `released_net`. `deposited = held + released + refunded`. A 409 `invalid_transition` adds `details.allowed_actions`. New: `POST /api/v1/payments/{id}/redact` (erasure of a finished payment's personal data); quotas answer 409 `webhook_limit_reached` and `api_key_limit_reached`; a resend while the delivery's series runs answers 409 `delivery_in_progress`; `recover` queues at most `RECOVER_MAX_DELIVERIES` and answers `queued` and `has_more`; a history entry's `event` may be null (the redaction); `GET /api/v1/audit/public_key` answers 404 until a worker has published its key. Paths match exactly: `/API/v1`, a trailing or doubled slash are 404. The `payment_id` filter of `GET /api/v1/events` and `GET /api/v1/ledger_entries` takes any payment id, as the delivery log's does.",
        '- **1.1.0**: a split (`resolve` with `resolution: "split"`) emits `payment.partially_refunded` for its refunded part (the payment as that partial refund leaves it), then `payment.released`, both with the split\'s `sequence`: subscribers to refund events see it, and `GET /api/v1/events` lists both.',
        '- **1.0.0**: first version.',
      ].join('\n'),
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
    },
    servers: [{ url: '/' }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    webhooks,
    components: {
      schemas: componentSchemas(named, requestSchemas),
      headers: HEADERS,
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
  };
  cache.set(operations, doc);
  return doc;
}

const TAGS: Record<string, string> = {
  Auth: 'Bearer tokens for people (API keys need none)',
  Payments: 'Payments and their transitions',
  Events: 'Every event a payment emitted, kept at least 30 days',
  Ledger: 'Double-entry ledger entries and balances (docs/money.md)',
  Audit: 'The custody trail: signed tree heads and proofs (docs/audit.md)',
  Webhooks: 'Webhook configurations and their delivery logs',
  Recipients: 'Who payments are released to: their verification and balances (docs/concepts.md)',
  Payouts: 'Released money paid out to a recipient’s bank account (docs/payouts.md)',
  'Test helpers': 'Test-mode only: move a payment’s or a payout’s clock',
  'API keys': 'Keys of the caller’s account and mode',
  Operations: 'Liveness and readiness probes',
};

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
