/**
 * The OpenAPI 3.1 document, described from the routes' own definitions (src/platform/http/registry.ts) and
 * the zod schemas that validate requests, so the reference cannot drift from the behaviour; written
 * by @asteasolutions/zod-to-openapi (docs/api-contract.md). Named schemas become components (their
 * JSON Schemas zod's own); refusals and their texts come from the error catalogue.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { PAYMENT_EVENTS } from '../../payments/paymentTypes.rules';
import { PAYOUT_EVENTS } from '../../payouts/payout.rules';
import { BANK_CREDIT_EVENTS } from '../../payouts/bankCredit.rules';
import { ERRORS, type ErrorCode, errorExample } from './errorCatalogue';
import { components, exampleOf } from './components';
import { INFO, TAGS } from './openapiInfo';
import type { Operation, ResponseSpec } from './registry';
import { BANK_CREDIT_ENVELOPES, PAYOUT_ENVELOPES, RecipientUpdatedEvent, WEBHOOK_ENVELOPES, webhookSchemaName } from './schemas';

type Json = Record<string, unknown>;
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/**
 * The named schemas (src/platform/http/components.ts): the document's components. A schema built per app
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

/** A component of the document as the library takes it. */
type Component<K extends 'headers' | 'securitySchemes'> = Parameters<typeof OpenAPIRegistry.prototype.registerComponent<K>>[2];

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
} satisfies Record<string, Component<'headers'>>;
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
  if (!id) throw new Error(`response schema for "${r.description}" is not a named component (src/platform/http/components.ts)`);
  return { 'application/json': { schema: ref(id), example: r.example ?? exampleOf(r.schema) } };
}

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'svc_test_… keys act in test mode, svc_live_… in live mode',
  },
  Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'From POST /api/v1/auth/login; lasts one hour' },
} satisfies Record<string, Component<'securitySchemes'>>;

const cache = new WeakMap<readonly Operation[], object>();

type Route = Parameters<OpenAPIRegistry['registerPath']>[0];

/** An operation as the library takes it: every part already written as the document shows it. */
function route(op: Operation, named: Map<z.ZodType, string>): Route {
  const params = parameters(op);
  const body = op.bodySchema;
  const bodyId = body && named.get(body);
  if (body && !bodyId) throw new Error(`${op.openApiPath}: its body schema is not a named component (src/platform/http/components.ts)`);
  return {
    method: op.method,
    path: op.openApiPath,
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
    // Parts written as loose JSON by the helpers above: the document's shape is what the tests and Redocly check.
  } as Route;
}

/** Each event's envelope, as the receiver's endpoint gets it. */
function webhookRoutes(): Route[] {
  const webhookSchemas: [string, string, unknown][] = [
    ...PAYMENT_EVENTS.map((event): [string, string, unknown] => [event, webhookSchemaName(event), exampleOf(WEBHOOK_ENVELOPES[event])]),
    ['recipient.updated', 'RecipientUpdatedEvent', exampleOf(RecipientUpdatedEvent)],
    ...PAYOUT_EVENTS.map((event): [string, string, unknown] => [event, webhookSchemaName(event), exampleOf(PAYOUT_ENVELOPES[event])]),
    ...BANK_CREDIT_EVENTS.map((event): [string, string, unknown] => [
      event,
      webhookSchemaName(event),
      exampleOf(BANK_CREDIT_ENVELOPES[event]),
    ]),
  ];
  return webhookSchemas.map(([event, schemaName, example]) => ({
    method: 'post',
    path: event,
    summary: event,
    description:
      'Sent to each configuration subscribed to this event, signed (docs/webhooks.md: webhook-id, webhook-timestamp, webhook-signature and X-Service-Signature). Answer 2xx within the timeout; anything else is retried; 410 disables the configuration.',
    operationId: `webhook${schemaName}`,
    tags: ['Webhooks'],
    security: [],
    requestBody: { required: true, content: { 'application/json': { schema: ref(schemaName), example } } },
    responses: {
      '200': { description: 'Received (any 2xx)' },
      '410': { description: 'Gone: the service disables this configuration' },
    },
  }));
}

/**
 * The document for these operations (the app's own, see `documentedOperations`), written by
 * @asteasolutions/zod-to-openapi from a registry of its routes, webhooks and components; the
 * components' JSON Schemas are zod's own (see `componentSchemas`).
 */
export function openApiDocument(operations: readonly Operation[]): object {
  const cached = cache.get(operations);
  if (cached) return cached;
  const named = namedSchemas(operations);
  const requestSchemas = new Set(operations.flatMap((op) => (op.bodySchema ? [op.bodySchema] : [])));
  const registry = new OpenAPIRegistry();
  for (const op of operations) registry.registerPath(route(op, named));
  for (const webhook of webhookRoutes()) registry.registerWebhook(webhook);
  for (const [id, schema] of Object.entries(componentSchemas(named, requestSchemas))) registry.registerComponent('schemas', id, schema);
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) registry.registerComponent('securitySchemes', name, scheme);
  const generated = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: INFO,
    servers: [{ url: '/' }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name, description: TAGS[name] ?? name })),
  });
  // The generator adds an empty `parameters` map to the components: the document shares no parameter.
  const { components: all, paths, webhooks, ...head } = generated;
  const { parameters: _p, ...components } = all ?? {};
  const doc = { ...head, paths, webhooks, components };
  cache.set(operations, doc);
  return doc;
}
