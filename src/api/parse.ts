/** Turning client input into typed values, or a 400 that names every bad field at once. */
import type { z } from 'zod';
import { NotFound } from '../services/errors';
import { type ApiError, type FieldError, invalidRequest } from './errors';

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

export function validationError(error: z.ZodError, where: 'body' | 'query' = 'body'): ApiError {
  return invalidRequest(fieldErrors(error, where));
}

export function parse<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' = 'body'): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/** Path ids are ours (`pay_…`, `wh_…`, `key_…`): anything else cannot exist, so it is a 404 before any lookup. */
export const ID_PATTERN = /^[a-z]{2,5}_[0-9A-Za-z_]{1,64}$/;

export function checkIdParam(what: string) {
  return (id: string, _ctx: unknown, next: () => Promise<unknown>) => {
    if (!ID_PATTERN.test(id)) throw new NotFound(what);
    return next();
  };
}
