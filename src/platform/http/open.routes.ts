/** The routes without an API credential: the probes and the login. */
import { RateLimited, Unauthenticated } from '../useCaseErrors';
import type { AppDeps } from './context';
import type { ErrorCode } from './errorCatalogue';
import { jsonBody } from './jsonBody.middleware';
import { type loginRateLimit, tooMany } from './limits.middleware';
import { Routes } from './registry';
import { Health, LoginRequest, LoginResponse, Readiness } from './schemas';

/** Node's HTTP parser refuses oversized headers before any route (src/platform/http/server.ts): the probes' only refusal. */
const PROBE_ERRORS: ErrorCode[] = ['request_header_fields_too_large'];

export function openRoutes({ services, config }: Pick<AppDeps, 'services' | 'config'>, loginLimit: ReturnType<typeof loginRateLimit>) {
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
        if (err instanceof Unauthenticated) await loginLimit.failed(ctx.ip, body.email);
        // The password hashing gate's refusal: the queue it found full.
        if (err instanceof RateLimited)
          throw tooMany(err.retryAfterSeconds, { limit: config.PASSWORD_HASH_QUEUE, setting: 'PASSWORD_HASH_QUEUE' });
        throw err;
      }
    },
  );
  return routes;
}
