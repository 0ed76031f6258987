import type { Context, Next } from 'koa';
import { SignJWT, jwtVerify } from 'jose';
import { API_KEY_PATTERN, dummyPasswordHash, findApiKey, findUserByEmail, findUserById, verifyPassword } from '../db/accounts';
import type { AppDeps, AppState, Principal } from './context';
import { ApiError } from './errors';

export const TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'payment-custody';

const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' });

export function tokens(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    async issue(user: { id: string; account_id: string }): Promise<{ token: string; expires_at: string }> {
      const expires = Math.floor(Date.now() / 1000) + TOKEN_TTL_SECONDS;
      const token = await new SignJWT({ acct: user.account_id })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setIssuer(ISSUER)
        .setIssuedAt()
        .setExpirationTime(expires)
        .sign(key);
      return { token, expires_at: new Date(expires * 1000).toISOString() };
    },
    async verify(token: string): Promise<{ userId: string; accountId: string }> {
      // exp is required (a token without one would never expire), and checked against the clock.
      const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub'] });
      if (typeof payload.sub !== 'string' || typeof payload.acct !== 'string') throw new Error('malformed token');
      return { userId: payload.sub, accountId: payload.acct };
    },
  };
}

export async function login({ db }: Pick<AppDeps, 'db'>, issuer: ReturnType<typeof tokens>, email: string, password: string) {
  const user = await findUserByEmail(db, email);
  // Compare against a dummy hash for unknown e-mails so response time reveals nothing.
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()));
  if (!user || !ok) throw unauthorized('wrong e-mail or password');
  return issuer.issue(user);
}

/** The budget of failed authentications per client address (see `authFailureLimit` in middleware.ts). */
export interface FailureLimit {
  check(address: string): Promise<void>;
  failed(address: string): Promise<void>;
}

/**
 * `X-API-Key` (mode from the key's prefix) or `Authorization: Bearer` (mode from X-Service-Mode).
 * An address over its budget of failed authentications gets 429 before any credential is looked at,
 * so the limit answers the same whether the next guess would have been right or wrong.
 */
export function authenticate(
  { db }: Pick<AppDeps, 'db'>,
  issuer: ReturnType<typeof tokens>,
  limit: (key: string) => Promise<void>,
  failures: FailureLimit,
) {
  return async (ctx: Context, next: Next) => {
    await failures.check(ctx.ip);
    let principal: Principal;
    try {
      principal = await resolvePrincipal(ctx);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) await failures.failed(ctx.ip);
      throw err;
    }
    await limit(principal.credential);
    (ctx.state as AppState).principal = principal;
    await next();
  };

  async function resolvePrincipal(ctx: Context): Promise<Principal> {
    const apiKey = ctx.get('X-API-Key');
    const authorization = ctx.get('Authorization');
    if (apiKey) {
      if (!API_KEY_PATTERN.test(apiKey)) throw unauthorized('invalid API key');
      const record = await findApiKey(db, apiKey);
      if (!record) throw unauthorized('invalid API key');
      return { accountId: record.account_id, livemode: record.livemode, actor: record.id, credential: record.id };
    }
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw unauthorized('send an API key in X-API-Key or a token in Authorization: Bearer');
    let claims: { userId: string; accountId: string };
    try {
      claims = await issuer.verify(match[1]);
    } catch {
      throw unauthorized('invalid or expired token');
    }
    const user = await findUserById(db, claims.userId);
    if (!user || user.account_id !== claims.accountId) throw unauthorized('invalid or expired token');
    const mode = ctx.get('X-Service-Mode') || 'test';
    if (mode !== 'test' && mode !== 'live') {
      throw new ApiError(400, 'invalid_request', 'X-Service-Mode must be "test" or "live"', [
        { field: 'X-Service-Mode', message: 'must be test or live' },
      ]);
    }
    return { accountId: user.account_id, livemode: mode === 'live', actor: user.id, credential: user.id };
  }
}
