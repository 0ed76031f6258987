/**
 * Each route defined once, for the router and the OpenAPI document together: method, path,
 * summary, body, query and responses beside the handler. The statuses that follow from a route's
 * shape (a body, a query, authentication, an Idempotency-Key, a path id) are derived here.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppState } from './context';
import type { ErrorCode } from './errorCatalogue';
import { checkIdParam, parse } from './parse';

export type Method = 'get' | 'post' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema: z.ZodType;
  /** Default: the schema's example in src/api/examples.ts. */
  example?: unknown;
}

/** A body validated by its schema, or by a parser that reports more than the schema can (the schema documents it). */
export type BodySpec<T> = z.ZodType<T> | { schema: z.ZodType; parse: (raw: unknown) => T };

export interface RouteSpec<B = undefined, Q = undefined> {
  method: Method;
  /** Koa style, under the registrar's prefix: `/payments/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  deprecated?: boolean;
  body?: BodySpec<B>;
  bodyExample?: unknown;
  query?: z.ZodType<Q>;
  /** The answers of a request that succeeds; the next two fields add its refusals. */
  responses: Record<number, ResponseSpec>;
  /** Codes that follow from what the route does (e.g. invalid_transition), beyond those derived from its shape. */
  errors?: ErrorCode[];
}

export interface PathParam {
  name: string;
  description: string;
}

/** What the document needs of a route (no handler). */
export interface Operation extends RouteSpec<unknown, unknown> {
  /** The full OpenAPI path: `/api/v1/payments/{id}`. */
  openApiPath: string;
  auth: boolean;
  /** Authenticated POSTs take an Idempotency-Key. */
  idempotent: boolean;
  params: PathParam[];
  /** Every refusal the route can answer, derived and declared. */
  errorCodes: ErrorCode[];
  bodySchema?: z.ZodType;
}

export type Handler<B, Q> = (ctx: Context & { params: Record<string, string>; state: AppState }, input: { body: B; query: Q }) => unknown;

const BODY_METHODS: Method[] = ['post', 'patch', 'delete'];

/** The input of a route that takes none, a POST's body or a GET's query: any field or parameter is a 400. */
const Nothing = z.object({}).strict();

/** The refusals a route's shape implies: see the module comment. */
function derivedErrors(spec: RouteSpec<unknown, unknown>, auth: boolean, hasParams: boolean): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors ?? []);
  // Every POST, PATCH and DELETE reads a JSON body (src/api/middleware/jsonBody.ts), whether or not the route wants one.
  if (BODY_METHODS.includes(spec.method))
    for (const c of ['invalid_request', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(c);
  if (spec.body || spec.query || (spec.method === 'get' && auth)) codes.add('invalid_request');
  if (auth) {
    // X-Service-Mode is checked (400); credentials are looked up in PostgreSQL (503).
    for (const c of ['invalid_request', 'unauthorized', 'rate_limited', 'service_unavailable'] as const) codes.add(c);
    if (spec.method === 'post') codes.add('idempotency_conflict');
  }
  if (hasParams) codes.add('not_found');
  return [...codes];
}

const schemaOf = (body: BodySpec<unknown> | undefined) => (body && 'parse' in body && 'schema' in body ? body.schema : body);

/** A Koa router whose every route is documented: routes can only be added with their description. */
export class Routes {
  readonly router = new Router<AppState>();
  readonly operations: Operation[] = [];
  private readonly params = new Map<string, string>();

  constructor(private readonly options: { prefix: string; auth: boolean }) {}

  /** A path parameter: an id of ours, so anything else is a 404 before any lookup. */
  param(name: string, what: string, description: string): this {
    this.params.set(name, description);
    this.router.param(name, checkIdParam(what));
    return this;
  }

  add<B = undefined, Q = undefined>(spec: RouteSpec<B, Q>, handler: Handler<B, Q>): this {
    const params = [...spec.path.matchAll(/:(\w+)/g)].map(([, name]) => {
      const description = this.params.get(name);
      if (!description) throw new Error(`${spec.path}: path parameter ${name} has no param() description`);
      return { name, description };
    });
    const auth = this.options.auth;
    const op: Operation = {
      ...(spec as RouteSpec<unknown, unknown>),
      openApiPath: `${this.options.prefix}${spec.path}`.replace(/:(\w+)/g, '{$1}'),
      auth,
      idempotent: auth && spec.method === 'post',
      params,
      errorCodes: derivedErrors(spec, auth, params.length > 0),
      bodySchema: schemaOf(spec.body),
    };
    this.operations.push(op);
    this.router[spec.method](spec.path, async (ctx) => {
      const c = ctx as Parameters<Handler<B, Q>>[0];
      await handler(c, { body: readBody(spec, c.state.body), query: readQuery(spec, ctx.query, auth) });
    });
    return this;
  }
}

function readBody<B>(spec: RouteSpec<B, unknown>, raw: unknown): B {
  const body = spec.body;
  if (!body) {
    // A POST that takes no body refuses fields it would ignore; PATCH and DELETE bodies are not read.
    if (spec.method === 'post') parse(Nothing, raw);
    return undefined as B;
  }
  if ('parse' in body && 'schema' in body) return body.parse(raw);
  return parse(body, raw);
}

function readQuery<Q>(spec: RouteSpec<unknown, Q>, raw: unknown, auth: boolean): Q {
  if (spec.query) return parse(spec.query, raw, 'query');
  // An API GET takes no query parameter it does not name; other methods and the probes ignore the query string.
  if (spec.method === 'get' && auth) parse(Nothing, raw, 'query');
  return undefined as Q;
}
