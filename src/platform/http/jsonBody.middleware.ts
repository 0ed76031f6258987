/** The JSON body middleware: reads and parses a request body within the size limit. */
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import type { AppState } from './context';
import { ApiError } from './httpErrors';

const MAX_BODY_BYTES = 100 * 1024;
/** Deeper JSON is refused before any other work: everything after the parser (canonicalisation, schemas) may recurse. */
const MAX_BODY_DEPTH = 64;

/** How deep `value` nests arrays and objects, counted without recursion; stops once past `limit`. */
function nestingDepth(value: unknown, limit = MAX_BODY_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Routes that take a raw document instead of JSON (`POST /api/v1/bank_files`: a bank's XML file), by
 * exact path, with their own size limit and the setting that sets it. The body is kept whole in
 * `rawBody`; `body` is its SHA-256, so an Idempotency-Key binds the exact bytes. Its content type is
 * the route's to check, after authentication: a request without credentials is a 401 whatever it sends.
 */
export function rawBody(paths: Record<string, { maxBytes: number; setting: string }>) {
  return async (ctx: Context, next: Next) => {
    const raw = ctx.method === 'POST' ? paths[ctx.path] : undefined;
    if (!raw) return jsonBody(ctx, next);
    const state = ctx.state as AppState;
    try {
      state.rawBody = await getRawBody(ctx.req, { limit: raw.maxBytes, length: ctx.get('Content-Length') || undefined });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') {
        throw new ApiError(413, 'payload_too_large', `this route takes at most ${raw.maxBytes} bytes (${raw.setting})`, undefined, {
          Connection: 'close',
        });
      }
      throw new ApiError(400, 'invalid_request', 'the request body could not be read');
    }
    state.body = { sha256: createHash('sha256').update(state.rawBody).digest('hex') };
    await next();
  };
}

/**
 * Retired routes (`POST /api/v1/bank_files`, docs/bank.md) whose body is never read: their answer
 * (410) does not depend on it, and reading megabytes before authentication is work for nobody.
 * Every other request goes on to `jsonBody`.
 */
export function unreadBody(paths: readonly string[]) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'POST' || !paths.includes(ctx.path)) return jsonBody(ctx, next);
    const state = ctx.state as AppState;
    state.rawBody = Buffer.alloc(0);
    state.body = {};
    await next();
  };
}

/** JSON bodies only, at most 100 KB; malformed JSON is a 400, never a 500. */
export async function jsonBody(ctx: Context, next: Next) {
  const state = ctx.state as AppState;
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) {
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('Content-Length') || undefined });
    } catch (err) {
      const e = err as { type?: string };
      // The rest of the body stays unread, so this connection cannot carry another request.
      if (e.type === 'entity.too.large') {
        throw new ApiError(413, 'payload_too_large', `request bodies are limited to ${MAX_BODY_BYTES / 1024} KB`, undefined, {
          Connection: 'close',
        });
      }
      throw new ApiError(400, 'invalid_request', 'the request body could not be read');
    }
    state.rawBody = raw;
    if (raw.length === 0 || raw.toString('utf8').trim() === '') state.body = {};
    else {
      if (!ctx.is('application/json')) throw new ApiError(415, 'unsupported_media_type', 'send bodies as Content-Type: application/json');
      try {
        state.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiError(400, 'invalid_request', 'the request body is not valid JSON', [{ field: 'body', message: 'malformed JSON' }]);
      }
      if (nestingDepth(state.body) > MAX_BODY_DEPTH) {
        throw new ApiError(400, 'invalid_request', `the request body nests deeper than ${MAX_BODY_DEPTH} levels`, [
          { field: 'body', message: `nested deeper than ${MAX_BODY_DEPTH} levels` },
        ]);
      }
    }
  }
  await next();
}
