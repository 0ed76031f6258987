/**
 * The account use cases: who is calling (an API key or a bearer token), logging in, and the
 * caller's API keys. Tokens are HS256 JWTs that always carry `exp`.
 */
import { SignJWT, jwtVerify } from 'jose';
import type { Knex } from 'knex';
import {
  API_KEY_PATTERN,
  type ApiKeyRecord,
  createAccount,
  countApiKeys,
  createApiKey,
  dummyPasswordHash,
  findApiKey,
  findUserByEmail,
  findUserById,
  listApiKeys,
  revokeApiKey,
  setPassword,
  verifyPassword,
  withAccountLock,
} from './tenants.repository';
import type { Principal } from './tenancy.rules';
import { Gate } from '../platform/lib/gate';
import { Forbidden, NotFound, QuotaExceeded, Unauthenticated } from '../platform/useCaseErrors';

export type { ApiKeyRecord };

const TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'payment-custody';

function tokenIssuer(secret: string) {
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

/** `jwtSecret` is read on first use: a worker process builds the use cases but never signs a token, and has no secret. */
export function accountsService({
  db,
  jwtSecret,
  passwordHashing = { concurrency: 2, queue: 8 },
  maxApiKeys = 20,
}: {
  db: Knex;
  jwtSecret: () => string;
  /** MAX_API_KEYS_PER_ACCOUNT: active keys per account and mode. */
  maxApiKeys?: number;
  /** PASSWORD_HASH_CONCURRENCY and PASSWORD_HASH_QUEUE: beyond both, a login is a 429 before any hash. */
  passwordHashing?: { concurrency: number; queue: number };
}) {
  const hashing = new Gate(passwordHashing.concurrency, passwordHashing.queue);
  let issuer: ReturnType<typeof tokenIssuer> | undefined;
  const tokens = () => (issuer ??= tokenIssuer(jwtSecret()));
  return {
    /** A token for the user; unknown e-mails cost the same hash as wrong passwords, so timing reveals nothing. */
    async login(email: string, password: string) {
      const user = await findUserByEmail(db, email);
      const stored = user?.password_hash ?? (await dummyPasswordHash());
      const ok = await hashing.run(() => verifyPassword(password, stored));
      if (!user || !ok) throw new Unauthenticated('wrong e-mail or password');
      return tokens().issue(user);
    },

    /** `X-API-Key`: the mode is the key's. */
    async principalFromApiKey(apiKey: string): Promise<Principal> {
      if (!API_KEY_PATTERN.test(apiKey)) throw new Unauthenticated('invalid API key');
      const record = await findApiKey(db, apiKey);
      if (!record) throw new Unauthenticated('invalid API key');
      return { accountId: record.account_id, livemode: record.livemode, actor: record.id, credential: record.id };
    },

    /** `Authorization: Bearer`: the token's user, who then acts in the mode of their choice (X-Service-Mode). */
    async userFromToken(token: string): Promise<{ userId: string; accountId: string }> {
      let claims: { userId: string; accountId: string };
      try {
        claims = await tokens().verify(token);
      } catch {
        throw new Unauthenticated('invalid or expired token');
      }
      const user = await findUserById(db, claims.userId);
      if (!user || user.account_id !== claims.accountId) throw new Unauthenticated('invalid or expired token');
      return { userId: user.id, accountId: user.account_id };
    },

    /** A credential makes keys of its own mode only: a leaked test key must never mint a live one. */
    async createApiKey(principal: Principal, mode: 'test' | 'live'): Promise<{ record: ApiKeyRecord; key: string }> {
      if ((mode === 'live') !== principal.livemode) {
        const own = principal.livemode ? 'live' : 'test';
        throw new Forbidden(`a ${own}-mode credential can only create ${own} keys`);
      }
      return withAccountLock(db, principal.accountId, async (trx) => {
        if ((await countApiKeys(trx, principal.accountId, principal.livemode)) >= maxApiKeys) {
          throw new QuotaExceeded(
            'api_keys',
            maxApiKeys,
            'MAX_API_KEYS_PER_ACCOUNT',
            `this account has ${maxApiKeys} active ${principal.livemode ? 'live' : 'test'} API keys, the most it may have; revoke one first`,
          );
        }
        return createApiKey(trx, principal.accountId, principal.livemode);
      });
    },

    listApiKeys: (principal: Principal) => listApiKeys(db, principal.accountId, principal.livemode),

    async revokeApiKey(principal: Principal, id: string): Promise<void> {
      if (!(await revokeApiKey(db, principal.accountId, principal.livemode, id))) throw new NotFound('API key');
    },

    /** An account with one user, one test key and one live key (npm start's demo, `npm run admin`, tests). */
    createAccount: (email: string, password: string) => createAccount(db, email, password),

    /** A user's new password (npm start's demo login, when it still has the fixed one of old data directories). */
    setPassword: (email: string, password: string) => setPassword(db, email, password),
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
