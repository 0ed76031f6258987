import { createHash, randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { ulid } from 'ulid';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { SECRET_WITHHELD, claimIdempotencyKey, completeIdempotencyKey, failIdempotencyKey } from '../db/idempotency';
import { httpDuration, httpRequests } from '../lib/metrics';
import type { Logger } from '../lib/logger';
import { scopeOf } from '../domain/tenancy';
import { type AppDeps, type AppState, TEMPORAL_CALL_TIMEOUT_MS } from './context';
import { ApiError, toApiError } from './errors';

export const MAX_BODY_BYTES = 100 * 1024;

/** Every response carries X-Request-Id; a client-sent one is kept if it is sane. */
export function requestId(logger: Logger) {
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
    }
  }
  await next();
}

/** Per-credential rate limit (RATE_LIMIT_PER_SECOND); 429 with Retry-After. */
export function rateLimit(perSecond: number) {
  return limiter(perSecond, 1);
}

/**
 * Login attempts: each costs a deliberately slow password hash, so they get their own, much
 * tighter budget: 60 attempts a minute per address, and 10 failed ones a minute per e-mail and
 * address (after which that pair waits, whatever the password).
 */
export function loginRateLimit() {
  const MAX_FAILURES = 10;
  const perAddress = new RateLimiterMemory({ points: 60, duration: 60 });
  const failures = new RateLimiterMemory({ points: MAX_FAILURES, duration: 60 });
  const pair = (ip: string, email: string) => `${ip}|${email.toLowerCase()}`;
  return {
    async attempt(ip: string, email: string) {
      await consume(perAddress, ip);
      const used = await failures.get(pair(ip, email));
      if (used && used.consumedPoints >= MAX_FAILURES) throw tooMany(used.msBeforeNext);
    },
    async failed(ip: string, email: string) {
      await failures.penalty(pair(ip, email));
    },
  };
}

/**
 * Failed authentications (bad or unknown API key, bad, forged or expired token, none at all) per
 * client address (ctx.ip: X-Forwarded-For only under TRUST_PROXY): past `perMinute` failures in a
 * minute, every authenticated request from that address gets 429 until the minute is over.
 */
export function authFailureLimit(perMinute: number) {
  const failures = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return {
    async check(address: string) {
      const used = await failures.get(address);
      if (used && used.consumedPoints >= perMinute) throw tooMany(used.msBeforeNext);
    },
    async failed(address: string) {
      await failures.penalty(address);
    },
  };
}

function tooMany(msBeforeNext: number): ApiError {
  const retry = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiError(429, 'rate_limited', `too many requests; retry in ${retry} s`, undefined, { 'Retry-After': String(retry) });
}

async function consume(limiter: RateLimiterMemory, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    throw tooMany(res.msBeforeNext);
  }
}

function limiter(points: number, durationSeconds: number) {
  const limiter = new RateLimiterMemory({ points, duration: durationSeconds });
  return (key: string) => consume(limiter, key);
}

/**
 * Payment creates and transitions carry the key's resource id into Temporal (the workflow id, the
 * update id), and Temporal runs each at most once: a request whose key is still "in progress"
 * (its first attempt died, or could not record its answer while PostgreSQL was down) may run
 * again and learns the operation's true outcome, instead of a 409 about itself.
 */
const REENTRANT_OPERATION = /^\/api\/v1\/payments(\/[^/]+\/[a-z]+)?$/;

/**
 * Idempotency-Key on POST: the same key and body replays the first response; another body with
 * the same key is a 409. Keys are scoped to the account and mode.
 */
export function idempotency({ db }: Pick<AppDeps, 'db'>) {
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('Idempotency-Key');
    const state = ctx.state as AppState;
    if (ctx.method !== 'POST' || !key || !state.principal) return next();
    if (key.length > 255)
      throw new ApiError(400, 'invalid_request', 'Idempotency-Key is limited to 255 characters', [
        { field: 'Idempotency-Key', message: 'too long' },
      ]);
    const scope = scopeOf(state.principal);
    const hash = createHash('sha256')
      .update(`${ctx.method} ${ctx.path}\n`)
      .update(state.rawBody ?? Buffer.alloc(0))
      .digest('hex');
    const claim = await claimIdempotencyKey(db, scope, key, hash, () => ulid());
    if (claim.kind === 'conflict') throw new ApiError(409, 'idempotency_conflict', claim.message);
    if (claim.kind === 'in_progress' && !REENTRANT_OPERATION.test(ctx.path)) {
      throw new ApiError(409, 'idempotency_conflict', 'a request with this Idempotency-Key is still in progress');
    }
    if (claim.kind === 'replay') {
      if (isWithheld(claim.body)) {
        throw new ApiError(
          409,
          'idempotency_conflict',
          'the first request with this Idempotency-Key created a secret, which is shown only once; it cannot be shown again (list the resource to see it without its secret, or send a new key to create another)',
        );
      }
      ctx.status = claim.status;
      ctx.body = claim.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    state.resourceId = claim.resourceId;
    state.retry = claim.kind === 'in_progress' || claim.retaken;
    try {
      await next();
    } catch (err) {
      // A refusal (4xx) is the answer to replay; a failure on our side leaves the key retryable.
      const answer = toApiError(err);
      if (answer && answer.status < 500) {
        await completeIdempotencyKey(db, scope, key, answer.status, {
          error: { code: answer.code, message: answer.message, ...(answer.details !== undefined ? { details: answer.details } : {}) },
          request_id: state.requestId,
        });
      } else await failIdempotencyKey(db, scope, key);
      throw err;
    }
    if (ctx.status >= 500) await failIdempotencyKey(db, scope, key);
    else await completeIdempotencyKey(db, scope, key, ctx.status, state.responseHoldsSecret ? SECRET_WITHHELD : ctx.body);
  };
}

function isWithheld(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>).secret_withheld === true;
}
