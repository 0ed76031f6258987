import type { Context, Next } from 'koa';
import type { z } from 'zod';
import type { Logger } from '../lib/logger';
import { InvalidInput, InvalidTransition, NotFound, isUnavailable } from '../services/errors';

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

export const notFound = (what: string) => new ApiError(404, 'not_found', `no such ${what}`);

export interface FieldError {
  field: string;
  message: string;
}

export function fieldErrors(error: z.ZodError, where: 'body' | 'query' = 'body'): FieldError[] {
  return error.issues.map((issue) => ({
    // A field name can itself be a client's malformed key: shown with U+FFFD for its lone surrogates.
    field: issue.path.length ? issue.path.map((p) => String(p).toWellFormed()).join('.') : where,
    message:
      issue.code === 'unrecognized_keys'
        ? `unknown ${where === 'query' ? 'parameter' : 'field'}(s): ${issue.keys.join(', ')}`
        : issue.message,
  }));
}

export function invalidRequest(details: FieldError[]): ApiError {
  return new ApiError(400, 'invalid_request', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}

export function validationError(error: z.ZodError, where: 'body' | 'query' = 'body'): ApiError {
  return invalidRequest(fieldErrors(error, where));
}

export function parse<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' = 'body'): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/** The one place a failure becomes an HTTP answer: errors by meaning below the API, mapped here. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof NotFound) return new ApiError(404, 'not_found', err.message);
  if (err instanceof InvalidTransition) return new ApiError(409, 'invalid_transition', err.message, { status: err.status });
  if (err instanceof InvalidInput) return invalidRequest(err.details);
  if (isUnavailable(err))
    return new ApiError(503, 'service_unavailable', 'a service this request needs is unavailable; retry later', undefined, {
      'Retry-After': '1',
    });
  return undefined;
}

/** Every failure becomes `{"error":{code,message,details?},"request_id"}`; never a stack trace. */
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
      ctx.body = {
        error: { code: apiError.code, message: apiError.message, ...(apiError.details !== undefined ? { details: apiError.details } : {}) },
        request_id: ctx.state.requestId,
      };
    }
  };
}

/** Path ids are ours (`pay_…`, `wh_…`, `key_…`): anything else cannot exist, so it is a 404 before any lookup. */
export const ID_PATTERN = /^[a-z]{2,5}_[0-9A-Za-z_]{1,64}$/;

export function checkIdParam(what: string) {
  return (id: string, _ctx: unknown, next: () => Promise<unknown>) => {
    if (!ID_PATTERN.test(id)) throw notFound(what);
    return next();
  };
}
