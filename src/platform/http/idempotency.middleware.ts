/** The Idempotency-Key middleware: a retried POST replays the first answer instead of acting twice. */
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import { scopeOf } from '../../tenants/tenancy.rules';
import type { IdempotencyService } from '../idempotency.service';
import type { AppState } from './context';
import { ApiError, type ErrorCode, errorBody, toApiError } from './httpErrors';

/**
 * Payment creates and transitions carry the key's resource id into Temporal (the workflow id, the
 * update id), and Temporal runs each at most once: they may run again while the key is "in progress".
 */
const REENTRANT_OPERATION = /^\/api\/v1\/payments(\/[^/]+\/[a-z]+)?$/;

/**
 * Answers of a request that did not run (docs/api.md, "Idempotency-Key"): bad input, an object not
 * there (or not visible yet: a payment whose row is being written), a conflicting, forbidden or
 * rate-limited request, a quota that says to wait. None is kept for replay, like a failure on our
 * side (5xx, 503): a retry with the same key and request runs again.
 */
const NOT_RUN = new Set<ErrorCode>([
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'idempotency_conflict',
  'rate_limited',
  'webhook_limit_reached',
  'api_key_limit_reached',
  'open_payment_limit_reached',
  'test_send_limit_reached',
]);

/** Whether the answer is one to keep for replay: the request ran (a success, or a refusal the operation decided). */
const ran = (status: number, code: ErrorCode | undefined) => status < 500 && !(code !== undefined && NOT_RUN.has(code));

/** JSON with every object's keys sorted, so that equal values give equal text. */
/** What a key is bound to: the parsed request decides, not its bytes (the same JSON with other spacing or key order is the same request). */
export const requestHash = (method: string, path: string, body: unknown) =>
  createHash('sha256')
    .update(`${method} ${path}\n`)
    .update(canonicalJson(body ?? {}))
    .digest('hex');

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Idempotency-Key on POST: the same key and request (the parsed JSON) replays the first response;
 * another request with the same key is a 409. Keys are scoped to the account and mode.
 */
export function idempotency(keys: IdempotencyService) {
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('Idempotency-Key');
    const state = ctx.state as AppState;
    if (ctx.method !== 'POST' || !key || !state.principal) return next();
    if (key.length > 255)
      throw new ApiError(400, 'invalid_request', 'Idempotency-Key is limited to 255 characters', [
        { field: 'Idempotency-Key', message: 'too long' },
      ]);
    const scope = scopeOf(state.principal);
    const begun = await keys.begin(scope, key, requestHash(ctx.method, ctx.path, state.body), REENTRANT_OPERATION.test(ctx.path));
    if (begun.kind === 'replay') {
      ctx.status = begun.status;
      ctx.body = begun.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    state.resourceId = begun.resourceId;
    state.retry = begun.retry;
    try {
      await next();
    } catch (err) {
      // A refusal the operation decided is the answer to replay; one of a request that did not run,
      // or a failure on our side, leaves the key usable: the same request runs again.
      const answer = toApiError(err);
      if (answer && ran(answer.status, answer.code)) {
        await keys.complete(scope, key, answer.status, errorBody(answer, state.answerRequestId), false);
      } else await keys.fail(scope, key);
      throw err;
    }
    const code = (ctx.body as { error?: { code?: ErrorCode } } | undefined)?.error?.code;
    if (!ran(ctx.status, code)) await keys.fail(scope, key);
    else await keys.complete(scope, key, ctx.status, ctx.body, state.responseHoldsSecret === true);
  };
}
