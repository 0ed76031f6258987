/**
 * Each route defined once, for the router and the OpenAPI document together: method, path,
 * summary, body, query and responses beside the handler. The statuses that follow from a route's
 * shape (a body, a query, authentication, an Idempotency-Key, a path id) are derived here.
 */
import Router from '@koa/router';
import type { DefaultContext, ParameterizedContext } from 'koa';
import { z } from 'zod';
import { Unauthenticated } from '../useCaseErrors';
import type { AppState } from './context';
import type { ErrorCode } from './errorCatalogue';
import { checkIdParam, parse } from './parse';

type Method = 'get' | 'post' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema: z.ZodType;
  /** Default: the schema's example (src/platform/http/components.ts). */
  example?: unknown;
}

type Responses = Record<number, ResponseSpec>;

/** What a route may answer: one of its documented responses' shapes. */
type ResponseBody<R extends Responses> = R[keyof R] extends { schema: infer S extends z.ZodType } ? z.output<S> : never;

interface RouteSpec<B = undefined, Q = undefined, R extends Responses = Responses> {
  method: Method;
  /** Koa style, under the registrar's prefix: `/payments/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  deprecated?: boolean;
  /** Validates the body and documents it: its output is what the handler gets. */
  body?: z.ZodType<B>;
  /**
   * A raw document instead of JSON (src/platform/http/jsonBody.middleware.ts, `rawBody`): its media type and an
   * example for the document; the handler reads `ctx.state.rawBody`.
   */
  rawBody?: { contentType: string; description: string; example: string };
  bodyExample?: unknown;
  query?: z.ZodType<Q>;
  /** The answers of a request that succeeds; the next two fields add its refusals. */
  responses: R;
  /** Codes that follow from what the route does (e.g. invalid_transition), beyond those derived from its shape. */
  errors?: ErrorCode[];
}

interface PathParam {
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

/** A handler's context: `ctx.body` takes only what the route documents (test/unit/handler-types.types.ts). */
type HandlerContext<R extends Responses = Responses> = ParameterizedContext<AppState, DefaultContext, ResponseBody<R>> & {
  params: Record<string, string>;
};

type Handler<B, Q, R extends Responses = Responses> = (ctx: HandlerContext<R>, input: { body: B; query: Q }) => unknown;

/**
 * Every router of the API matches paths exactly: `/API/v1` or `/api/v1/payments/` is a 404, never a
 * route reached around a middleware mounted on the exact prefix (docs/security.md).
 */
export const EXACT_PATHS = { sensitive: true, strict: true } as const;

const BODY_METHODS: Method[] = ['post', 'patch', 'delete'];

/** The input of a route that takes none, a POST's body or a GET's query: any field or parameter is a 400. */
const Nothing = z.object({}).strict();

/** The refusals a route's shape implies: see the module comment. */
function derivedErrors(spec: RouteSpec<unknown, unknown>, auth: boolean, hasParams: boolean): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors ?? []);
  // Every POST, PATCH and DELETE reads a JSON body (src/platform/http/jsonBody.middleware.ts), whether or not the route wants one.
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

/** A Koa router whose every route is documented: routes can only be added with their description. */
export class Routes {
  readonly router = new Router<AppState>(EXACT_PATHS);
  readonly operations: Operation[] = [];
  private readonly params = new Map<string, string>();

  constructor(private readonly options: { prefix: string; auth: boolean }) {}

  /** A path parameter: an id of ours, so anything else is a 404 before any lookup. */
  param(name: string, what: string, description: string): this {
    this.params.set(name, description);
    this.router.param(name, checkIdParam(what));
    return this;
  }

  add<B = undefined, Q = undefined, R extends Responses = Responses>(spec: RouteSpec<B, Q, R>, handler: Handler<B, Q, R>): this {
    const params = [...spec.path.matchAll(/:(\w+)/g)].map(([, name]) => {
      const description = this.params.get(name);
      if (!description) throw new Error(`${spec.path}: path parameter ${name} has no param() description`);
      return { name, description };
    });
    const auth = this.options.auth;
    const op: Operation = {
      ...(spec as unknown as RouteSpec<unknown, unknown>),
      openApiPath: `${this.options.prefix}${spec.path}`.replace(/:(\w+)/g, '{$1}'),
      auth,
      idempotent: auth && spec.method === 'post',
      params,
      errorCodes: derivedErrors(spec, auth, params.length > 0),
      bodySchema: spec.body,
    };
    this.operations.push(op);
    this.router[spec.method](spec.path, async (ctx) => {
      const c = ctx as unknown as HandlerContext<R>;
      // Checked here, not only by the middleware in front: however a request reached this route,
      // a handler that declares auth never runs without a caller.
      if (auth && !c.state.principal) throw new Unauthenticated('send an API key in X-API-Key or a token in Authorization: Bearer');
      await handler(c, { body: readBody(spec, c.state.body), query: readQuery(spec, ctx.query, auth) });
    });
    return this;
  }
}

function readBody<B>(spec: RouteSpec<B, unknown>, raw: unknown): B {
  const body = spec.body;
  // A raw document is the handler's to read (its bytes' hash stands in `raw`, for the Idempotency-Key).
  if (spec.rawBody) return undefined as B;
  if (!body) {
    // A POST that takes no body refuses fields it would ignore; PATCH and DELETE bodies are not read.
    if (spec.method === 'post') parse(Nothing, raw);
    return undefined as B;
  }
  return parse(body, raw);
}

function readQuery<Q>(spec: RouteSpec<unknown, Q>, raw: unknown, auth: boolean): Q {
  if (spec.query) return parse(spec.query, raw, 'query');
  // An API GET takes no query parameter it does not name; other methods and the probes ignore the query string.
  if (spec.method === 'get' && auth) parse(Nothing, raw, 'query');
  return undefined as Q;
}
