/** API errors: the error body, and the one mapping from the use cases' errors to HTTP answers. */
import type { Context, Next } from 'koa';
import type { Logger } from '../lib/logger';
import type { FieldProblem } from '../useCaseErrors';
import { ERRORS, type ErrorCode, type ErrorEntry } from './errorCatalogue';

export type { ErrorCode };

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

export function invalidRequest(details: FieldProblem[]): ApiError {
  return new ApiError(400, 'invalid_request', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}

/** The one place a failure becomes an HTTP answer: errors by meaning below the API, mapped by the catalogue. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  for (const [code, entry] of Object.entries(ERRORS) as [ErrorCode, ErrorEntry][]) {
    const from = entry.from;
    if (!from?.matches(err)) continue;
    const e = err as never;
    return new ApiError(entry.status, code, from.message ?? (err as Error).message, from.details?.(e), from.headers?.(e) ?? {});
  }
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
        apiError = new ApiError(500, 'internal_error', ERRORS.internal_error.example.message);
      }
      ctx.status = apiError.status;
      for (const [k, v] of Object.entries(apiError.headers)) ctx.set(k, v);
      ctx.body = errorBody(apiError, ctx.state.answerRequestId);
    }
  };
}
