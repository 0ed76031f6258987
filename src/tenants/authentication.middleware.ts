/** Authentication middleware: API keys and bearer tokens become a `Principal` of one account and mode. */
import type { Context, Next } from 'koa';
import type { AccountsService } from './tenants.service';
import { Unauthenticated } from '../platform/useCaseErrors';
import type { AppState, Principal } from '../platform/http/context';
import { ApiError } from '../platform/http/httpErrors';
import type { FailureLimit } from '../platform/http/limits.middleware';

/**
 * `X-API-Key` (mode from the key's prefix) or `Authorization: Bearer` (mode from X-Service-Mode).
 * A failed authentication counts against the client address; past its budget, failures from there
 * answer 429 instead of 401. Valid credentials are never refused for their address: behind a
 * shared address (a proxy without TRUST_PROXY), one client's wrong key must not lock out the
 * others. Guessing gains nothing from that: API keys hold 192 random bits and tokens are signed;
 * passwords, which can be guessed, have their own limit per e-mail (`loginRateLimit`).
 */
export function authenticate(accounts: AccountsService, limit: (principal: Principal) => Promise<void>, failures: FailureLimit) {
  return async (ctx: Context, next: Next) => {
    let principal: Principal;
    try {
      principal = await resolvePrincipal(ctx);
    } catch (err) {
      if (err instanceof Unauthenticated) {
        await failures.check(ctx.ip);
        await failures.failed(ctx.ip);
      }
      throw err;
    }
    await limit(principal);
    (ctx.state as AppState).principal = principal;
    await next();
  };

  async function resolvePrincipal(ctx: Context): Promise<Principal> {
    const apiKey = ctx.get('X-API-Key');
    if (apiKey) return accounts.principalFromApiKey(apiKey);
    const match = /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'));
    if (!match) throw new Unauthenticated('send an API key in X-API-Key or a token in Authorization: Bearer');
    // An API key is never a token: say where it goes rather than "invalid or expired token".
    if (match[1].startsWith('svc_'))
      throw new Unauthenticated('this is an API key: send it in the X-API-Key header, not as a bearer token');
    const user = await accounts.userFromToken(match[1]);
    const mode = ctx.get('X-Service-Mode') || 'test';
    if (mode !== 'test' && mode !== 'live') {
      throw new ApiError(400, 'invalid_request', 'X-Service-Mode must be "test" or "live"', [
        { field: 'X-Service-Mode', message: 'must be test or live' },
      ]);
    }
    return { accountId: user.accountId, livemode: mode === 'live', actor: user.userId, credential: user.userId };
  }
}
