import type { Context, Next } from 'koa';
import type { Logger } from '../lib/logger';
import {
  Forbidden,
  IdempotencyConflict,
  InvalidInput,
  InvalidTransition,
  NotFound,
  RateLimited,
  Unauthenticated,
  isUnavailable,
} from '../services/errors';

export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_transition'
  | 'idempotency_conflict'
  | 'conflict'
  | 'payload_too_large'
  | 'request_header_fields_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

/** An error a client should see: status, code, message and optional details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface FieldError {
  field: string;
  message: string;
}

export function invalidRequest(details: FieldError[]): ApiError {
  return new ApiError(400, 'invalid_request', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}

/** The one place a failure becomes an HTTP answer: errors by meaning below the API, mapped here. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof NotFound) return new ApiError(404, 'not_found', err.message);
  if (err instanceof InvalidTransition) return new ApiError(409, 'invalid_transition', err.message, { status: err.status });
  if (err instanceof InvalidInput) return invalidRequest(err.details);
  if (err instanceof Unauthenticated) return new ApiError(401, 'unauthorized', err.message, undefined, { 'WWW-Authenticate': 'Bearer' });
  if (err instanceof Forbidden) return new ApiError(403, 'forbidden', err.message);
  if (err instanceof IdempotencyConflict) return new ApiError(409, 'idempotency_conflict', err.message);
  if (err instanceof RateLimited)
    return new ApiError(429, 'rate_limited', err.message, undefined, { 'Retry-After': String(err.retryAfterSeconds) });
  if (isUnavailable(err))
    return new ApiError(503, 'service_unavailable', 'a service this request needs is unavailable; retry later', undefined, {
      'Retry-After': '1',
    });
  return undefined;
}

/** The error format: `{"error":{code,message,details?},"request_id"}`. */
export function errorBody(apiError: ApiError, requestId: string) {
  const { code, message, details } = apiError;
  return { error: { code, message, ...(details !== undefined ? { details } : {}) }, request_id: requestId };
}

/** Every failure becomes the error format; never a stack trace. */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`);
    } catch (err) {
      let apiError = toApiError(err);
      if (apiError?.status === 503) logger.warn({ request_id: ctx.state.requestId, err }, 'dependency unavailable');
      if (!apiError) {
        logger.error({ request_id: ctx.state.requestId, err }, 'unhandled error');
        apiError = new ApiError(500, 'internal_error', 'something went wrong on our side');
      }
      ctx.status = apiError.status;
      for (const [k, v] of Object.entries(apiError.headers)) ctx.set(k, v);
      ctx.body = errorBody(apiError, ctx.state.requestId);
    }
  };
}
