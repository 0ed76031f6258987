/** The Koa application: middleware in order, the open routes (routes/open.ts, routes/docs.ts) and the authenticated /api/v1 routers. */
import Router from '@koa/router';
import Koa from 'koa';
import { authenticate } from '../../tenants/authentication.middleware';
import type { AppDeps, AppState } from './context';
import { ApiError, errorMiddleware } from './httpErrors';
import { idempotency } from './idempotency.middleware';
import { unreadBody } from './jsonBody.middleware';
import { authFailureLimit, loginRateLimit, rateLimit } from './limits.middleware';
import { otherModeNotFound } from '../../tenants/otherMode.middleware';
import { requestLog } from './requestLog.middleware';
import { apiKeyRoutes } from '../../tenants/account.routes';
import { auditRoutes } from '../../audit/audit.routes';
import { docsRoutes } from './docs.routes';
import { eventRoutes } from '../../webhooks/events.routes';
import { ledgerRoutes } from '../../ledger/ledger.routes';
import { openRoutes } from './open.routes';
import { paymentRoutes } from '../../payments/payments.routes';
import { bankAccountRoutes } from '../../payouts/bankAccounts.routes';
import { payoutRoutes } from '../../payouts/payouts.routes';
import { RETIRED_BANK_FILES_PATH, bankFileRoutes } from '../../payouts/bankFiles.routes';
import { bankCreditRoutes } from '../../payouts/bankCredits.routes';
import { recipientRoutes } from '../../recipients/recipients.routes';
import { testHelperRoutes } from '../../payments/testClocks.routes';
import { webhookRoutes } from '../../webhooks/webhooks.routes';
import { EXACT_PATHS, type Routes } from './registry';
import { openApiDocument } from './openapi';

export function createApp(deps: AppDeps): Koa<AppState> {
  const { services, config, logger } = deps;
  // Behind TRUST_PROXY_HOPS proxies of ours, the client is that many X-Forwarded-For entries from the
  // right; entries further left are whatever the client wrote.
  const app = new Koa<AppState>({ proxy: config.TRUST_PROXY, maxIpsCount: config.TRUST_PROXY_HOPS });
  const limit = rateLimit(config.RATE_LIMIT_PER_SECOND);
  const authFailures = authFailureLimit(config.AUTH_FAILURES_PER_MINUTE);
  const loginLimit = loginRateLimit({
    attemptsPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE,
    failuresPerMinute: config.LOGIN_FAILURES_PER_MINUTE,
    failuresPerEmailPerHour: config.LOGIN_FAILURES_PER_EMAIL_PER_HOUR,
  });

  app.use(requestLog(logger));
  app.use(errorMiddleware(logger));

  const docs = docsRoutes(() => openApiDocument(operations));
  app.use(docs.routes());
  const open = openRoutes(deps, loginLimit);
  app.use(open.router.routes());

  const api = new Router<AppState>({ prefix: '/api/v1', ...EXACT_PATHS });
  api.use(
    unreadBody([RETIRED_BANK_FILES_PATH]),
    authenticate(services.accounts, limit, authFailures),
    idempotency(services.idempotency),
    otherModeNotFound(services.modes),
  );
  const routed = apiRouters(deps);
  for (const routes of routed) api.use(routes.router.routes());
  const operations = [...open.operations, ...routed.flatMap((r) => r.operations)];
  app.use(api.routes());
  app.use(methodNotAllowed);
  return app;
}

/**
 * A path some router knows asked with a method none of its routes takes (OPTIONS, PUT, TRACE…):
 * 405 in the error format with the Allow list. Router-level middleware (authentication) runs only
 * for a route's method, so this answer comes without credentials and must never be a 2xx, as the
 * router's own allowedMethods makes OPTIONS.
 */
async function methodNotAllowed(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  await next();
  const matched = (ctx as { matched?: { methods: string[] }[] }).matched;
  if (!matched || ctx.status !== 404 || ctx.body !== undefined) return;
  const allowed = [...new Set(matched.flatMap((layer) => layer.methods))];
  if (allowed.length === 0 || allowed.includes(ctx.method)) return;
  const allow = allowed.join(', ');
  throw new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed on this path (allowed: ${allow})`, undefined, {
    Allow: allow,
  });
}

/** The authenticated routes under /api/v1. */
export function apiRouters({ services, config }: Pick<AppDeps, 'services' | 'config'>): Routes[] {
  return [
    paymentRoutes(services.payments, services.redaction, { maxAmount: config.PAYMENT_MAX_AMOUNT }),
    eventRoutes(services.events),
    ledgerRoutes(services.ledger),
    webhookRoutes(services.webhooks),
    apiKeyRoutes(services.accounts),
    testHelperRoutes(services.payments),
    auditRoutes(services.audit),
    recipientRoutes(services.recipients),
    bankAccountRoutes(services.bankAccounts),
    payoutRoutes(services.payouts),
    bankFileRoutes(services.bankFiles),
    bankCreditRoutes(services.bankCredits),
  ];
}
