/** The Koa application: middleware in order, the open routes (probes, login, reference) and the authenticated /api/v1 routers. */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import type { Config } from '../config';
import type { Services } from '../services';
import { Unauthenticated } from '../services/errors';
import { authenticate } from './auth';
import type { AppDeps, AppState } from './context';
import { ApiError, type ErrorCode, errorMiddleware } from './errors';
import { idempotency } from './middleware/idempotency';
import { jsonBody } from './middleware/jsonBody';
import { authFailureLimit, loginRateLimit, rateLimit } from './middleware/limits';
import { requestLog } from './middleware/requestLog';
import { apiKeyRoutes } from './routes/account';
import { auditRoutes } from './routes/audit';
import { eventRoutes } from './routes/events';
import { ledgerRoutes } from './routes/ledger';
import { paymentRoutes } from './routes/payments';
import { testHelperRoutes } from './routes/testHelpers';
import { webhookRoutes } from './routes/webhooks';
import { type Operation, Routes } from './registry';
import { Health, LoginRequest, LoginResponse, Readiness } from './schemas';
import { DOCS_INIT_JS, docsPage, openApiDocument } from './openapi';

const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const DOCS_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

export function createApp(deps: AppDeps): Koa<AppState> {
  const { services, config, logger } = deps;
  const app = new Koa<AppState>({ proxy: config.TRUST_PROXY });
  const limit = rateLimit(config.RATE_LIMIT_PER_SECOND);
  const authFailures = authFailureLimit(config.AUTH_FAILURES_PER_MINUTE);
  const loginLimit = loginRateLimit();

  app.use(requestLog(logger));
  app.use(errorMiddleware(logger));

  const docs = docsRoutes(() => openApiDocument(operations));
  app.use(docs.routes());
  const open = openRoutes(deps, loginLimit);
  app.use(open.router.routes());

  const api = new Router<AppState>({ prefix: '/api/v1' });
  api.use(jsonBody, authenticate(services.accounts, limit, authFailures), idempotency(services.idempotency));
  const routed = apiRouters(deps);
  for (const routes of routed) api.use(routes.router.routes());
  const operations = [...open.operations, ...routed.flatMap((r) => r.operations)];
  app.use(api.routes());
  app.use(
    api.allowedMethods({
      throw: true,
      methodNotAllowed: () => new ApiError(405, 'method_not_allowed', 'method not allowed on this path'),
      notImplemented: () => new ApiError(405, 'method_not_allowed', 'method not allowed'),
    }),
  );
  return app;
}

/** The reference: the document, its page and the page's local assets (not themselves documented). */
export function docsRoutes(document: () => object) {
  const router = new Router<AppState>();
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = document();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = docsPage();
  });
  router.get('/docs/assets/:file', (ctx) => {
    if (ctx.params.file === 'docs-init.js') {
      ctx.type = 'application/javascript';
      ctx.body = DOCS_INIT_JS;
      return;
    }
    if (!DOCS_ASSETS.has(ctx.params.file)) throw new ApiError(404, 'not_found', 'no such asset');
    ctx.type = path.extname(ctx.params.file);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(swaggerUiDir, ctx.params.file));
  });
  return router;
}

/** Node's HTTP parser refuses oversized headers before any route (src/api/server.ts): the probes' only refusal. */
const PROBE_ERRORS: ErrorCode[] = ['request_header_fields_too_large'];

/** The routes without an API credential: the probes and the login. */
export function openRoutes({ services }: Pick<AppDeps, 'services'>, loginLimit: ReturnType<typeof loginRateLimit>) {
  const routes = new Routes({ prefix: '', auth: false });
  // Only a matched route runs it, so of these only the login reads a body.
  routes.router.use(jsonBody);
  const tag = 'Operations';
  routes.add(
    {
      method: 'get',
      path: '/healthz',
      tag,
      summary: 'Liveness',
      responses: { 200: { description: 'The process is up', schema: Health } },
      errors: PROBE_ERRORS,
    },
    (ctx) => {
      ctx.body = { status: 'ok' };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/readyz',
      tag,
      summary: 'Readiness: PostgreSQL and Temporal reachable',
      errors: PROBE_ERRORS,
      responses: {
        200: { description: 'Ready', schema: Readiness },
        503: {
          description: 'A dependency is unreachable',
          schema: Readiness,
          example: { status: 'unavailable', checks: { postgres: 'ok', temporal: 'unavailable' } },
        },
      },
    },
    async (ctx) => {
      // Details go to the log, not to an unauthenticated caller (they can name hosts and users).
      const checks = await services.health.readiness(ctx.state.requestId);
      ctx.status = Object.values(checks).every((c) => c === 'ok') ? 200 : 503;
      ctx.body = { status: ctx.status === 200 ? 'ok' : 'unavailable', checks };
    },
  );
  routes.add(
    {
      method: 'post',
      path: '/api/v1/auth/login',
      tag: 'Auth',
      summary: 'Log in; the token lasts one hour',
      body: LoginRequest,
      responses: { 200: { description: 'A bearer token', schema: LoginResponse } },
      errors: ['unauthorized', 'rate_limited', 'service_unavailable'],
    },
    async (ctx, { body }) => {
      await loginLimit.attempt(ctx.ip, body.email);
      try {
        ctx.body = await services.accounts.login(body.email, body.password);
      } catch (err) {
        // Only wrong passwords count against the e-mail, so guessing cannot lock its owner out for long.
        if (err instanceof Unauthenticated) await loginLimit.failed(ctx.ip, body.email);
        throw err;
      }
    },
  );
  return routes;
}

/** The authenticated routes under /api/v1. */
export function apiRouters({ services, config }: Pick<AppDeps, 'services' | 'config'>): Routes[] {
  return [
    paymentRoutes(services.payments, { maxAmount: config.PAYMENT_MAX_AMOUNT }),
    eventRoutes(services.events),
    ledgerRoutes(services.ledger),
    webhookRoutes(services.webhooks),
    apiKeyRoutes(services.accounts),
    testHelperRoutes(services.payments),
    auditRoutes(services.audit),
  ];
}

/**
 * Every documented operation, without a running service (for scripts and tests): the routes are
 * built over services that are never called.
 */
export function documentedOperations(config: Pick<Config, 'PAYMENT_MAX_AMOUNT'>): Operation[] {
  const services = new Proxy({} as Services, { get: () => ({}) });
  return [
    ...openRoutes({ services }, loginRateLimit()).operations,
    ...apiRouters({ services, config: config as Config }).flatMap((r) => r.operations),
  ];
}
