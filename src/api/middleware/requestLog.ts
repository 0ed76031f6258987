/** The request log middleware: request id, metrics, one log line per request, and the request's deadline. */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../../lib/logger';
import { httpDuration, httpRequests } from '../../lib/metrics';
import { type AppState, TEMPORAL_CALL_TIMEOUT_MS } from '../context';

/**
 * Every response carries X-Request-Id (a client-sent one is kept if it is sane), is counted and
 * timed by route, and is logged; the request's one deadline for its Temporal calls starts here.
 */
export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const sent = ctx.get('X-Request-Id');
    const id = /^[A-Za-z0-9._:-]{1,128}$/.test(sent) ? sent : `req_${randomUUID().replace(/-/g, '')}`;
    (ctx.state as AppState).requestId = id;
    (ctx.state as AppState).deadline = Date.now() + TEMPORAL_CALL_TIMEOUT_MS;
    ctx.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const labels = { method: ctx.method, route, status: String(ctx.status) };
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
      logger.info({ request_id: id, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
    }
  };
}
