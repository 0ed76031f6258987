/** The request log middleware: request id, metrics, one log line per request, and the request's deadline. */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../lib/logger';
import { httpDuration, httpRequests } from '../lib/metrics';
import { type AppState, TEMPORAL_CALL_TIMEOUT_MS } from './context';

/**
 * Every response carries X-Request-Id (a client-sent one is echoed if it is sane), is counted and
 * timed by route, and is logged; the request's one deadline for its Temporal calls starts here.
 * The service's own id is made for every request: it is the one that reaches Temporal and every
 * log line; the request's line also names the client's (docs/api.md, "Request ids").
 */
export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const sent = ctx.get('X-Request-Id');
    const clientId = /^[A-Za-z0-9._:-]{1,128}$/.test(sent) ? sent : undefined;
    const id = `req_${randomUUID().replace(/-/g, '')}`;
    const state = ctx.state as AppState;
    state.requestId = id;
    state.answerRequestId = clientId ?? id;
    state.deadline = Date.now() + TEMPORAL_CALL_TIMEOUT_MS;
    ctx.set('X-Request-Id', state.answerRequestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const labels = { method: ctx.method, route, status: String(ctx.status) };
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
      const line = clientId === undefined ? { request_id: id } : { request_id: id, client_request_id: clientId };
      logger.info({ ...line, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
    }
  };
}
