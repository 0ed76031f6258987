/** Turning client input into typed values, or a 400 that names every bad field at once. */
import type { z } from 'zod';
import { type FieldProblem, NotFound } from '../useCaseErrors';
import { type ApiError, invalidRequest } from './httpErrors';

/** Whether the input has no value at all at `path` (its parent object lacks the key). */
function absent(input: unknown, path: readonly PropertyKey[]): boolean {
  if (!path.length) return input === undefined;
  let parent = input;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  return typeof parent === 'object' && parent !== null && !Object.hasOwn(parent, path[path.length - 1]);
}

/**
 * One entry per bad field. A field left out says that it is required, whatever the schema says of a
 * wrong value ("must be a valid e-mail address" would send a client looking for a typo).
 */
function fieldErrors(error: z.ZodError, where: 'body' | 'query' = 'body', input?: unknown): FieldProblem[] {
  return error.issues.map((issue) => ({
    // A field name can itself be a client's malformed key: shown with U+FFFD for its lone surrogates.
    field: issue.path.length ? issue.path.map((p) => String(p).toWellFormed()).join('.') : where,
    message:
      issue.code === 'unrecognized_keys'
        ? `unknown ${where === 'query' ? 'parameter' : 'field'}(s): ${issue.keys.join(', ')}`
        : issue.code === 'invalid_type' && issue.path.length && absent(input, issue.path)
          ? 'is required'
          : issue.message,
  }));
}

function validationError(error: z.ZodError, where: 'body' | 'query' = 'body', input?: unknown): ApiError {
  return invalidRequest(fieldErrors(error, where, input));
}

export function parse<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' = 'body'): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, where, input);
  return result.data;
}

/** Every id the service makes: a short prefix, `_`, then letters and digits (a ULID or a hash). */
export const idPattern = (prefix = '[a-z]{2,5}') => new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`);

/** Path ids are ours (`pay_…`, `wh_…`, `key_…`): anything else cannot exist, so it is a 404 before any lookup. */
const ID_PATTERN = idPattern();

export function checkIdParam(what: string) {
  return (id: string, _ctx: unknown, next: () => Promise<unknown>) => {
    if (!ID_PATTERN.test(id)) throw new NotFound(what);
    return next();
  };
}
