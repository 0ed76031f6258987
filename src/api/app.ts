import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { Unauthenticated } from '../services/errors';
import { authenticate } from './auth';
import type { AppDeps, AppState } from './context';
import { ApiError, errorMiddleware } from './errors';
import { idempotency } from './middleware/idempotency';
import { jsonBody } from './middleware/jsonBody';
import { authFailureLimit, loginRateLimit, rateLimit } from './middleware/limits';
import { requestLog } from './middleware/requestLog';
import { parse } from './parse';
import { apiKeyRoutes } from './routes/account';
import { auditRoutes } from './routes/audit';
import { eventRoutes } from './routes/events';
import { ledgerRoutes } from './routes/ledger';
import { paymentRoutes } from './routes/payments';
import { testHelperRoutes } from './routes/testHelpers';
import { webhookRoutes } from './routes/webhooks';
import { LoginRequest } from './schemas';
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

  const open = new Router<AppState>();
  open.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  open.get('/readyz', async (ctx) => {
    // Details go to the log, not to an unauthenticated caller (they can name hosts and users).
    const checks = await services.health.readiness(ctx.state.requestId);
    ctx.status = Object.values(checks).every((c) => c === 'ok') ? 200 : 503;
    ctx.body = { status: ctx.status === 200 ? 'ok' : 'unavailable', checks };
  });
  open.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });
  open.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = docsPage();
  });
  open.get('/docs/assets/:file', (ctx) => {
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
  open.post('/api/v1/auth/login', jsonBody, async (ctx) => {
    const body = parse(LoginRequest, ctx.state.body);
    await loginLimit.attempt(ctx.ip, body.email);
    try {
      ctx.body = await services.accounts.login(body.email, body.password);
    } catch (err) {
      // Only wrong passwords count against the e-mail, so guessing cannot lock its owner out for long.
      if (err instanceof Unauthenticated) await loginLimit.failed(ctx.ip, body.email);
      throw err;
    }
  });
  app.use(open.routes());

  const api = new Router<AppState>({ prefix: '/api/v1' });
  api.use(jsonBody, authenticate(services.accounts, limit, authFailures), idempotency(services.idempotency));
  for (const routes of apiRouters(deps)) api.use(routes.routes());
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

/** The authenticated routers under /api/v1 (also read by the OpenAPI coverage test). */
export function apiRouters({ services, config }: Pick<AppDeps, 'services' | 'config'>) {
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
