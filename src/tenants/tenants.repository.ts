/** The account repository: accounts and their users (password hashes), and API keys (stored hashed). */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Knex } from 'knex';
import { ulid } from 'ulid';

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));
}

// scrypt parameters (N=2^17, r=8, p=1): OWASP's baseline for scrypt. Each hash needs 128·N·r =
// 128 MiB of memory, hence maxmem. The parameters are stored in each hash, so hashes made with
// earlier ones (N=2^15) keep verifying.
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(key, expected);
}

/** A dummy hash to compare against when the e-mail is unknown, so timing does not reveal accounts. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

export const API_KEY_PATTERN = /^svc_(test|live)_[A-Za-z0-9_-]{32}$/;

function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  livemode: boolean;
  last4: string;
  created_at: Date;
}

/** A new key: 192 random bits, shown once, stored as its SHA-256 only. */
export async function createApiKey(db: Knex, accountId: string, livemode: boolean): Promise<{ record: ApiKeyRecord; key: string }> {
  const key = `svc_${livemode ? 'live' : 'test'}_${randomBytes(24).toString('base64url')}`;
  const [record] = await db('api_keys')
    .insert({ id: `key_${ulid()}`, account_id: accountId, livemode, key_hash: hashApiKey(key), last4: key.slice(-4) })
    .returning(['id', 'account_id', 'livemode', 'last4', 'created_at']);
  return { record, key };
}

/**
 * `work` in a transaction holding the account's row lock: what counts an account's resources and
 * then adds one (its quotas) cannot be raced past the limit by concurrent requests.
 */
export function withAccountLock<T>(db: Knex, accountId: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx('accounts').where({ id: accountId }).forUpdate().first('id');
    return work(trx);
  });
}

export async function countApiKeys(db: Knex, accountId: string, livemode: boolean): Promise<number> {
  const row = await db('api_keys')
    .where({ account_id: accountId, livemode })
    .whereNull('revoked_at')
    .count<{ n: string }>('* as n')
    .first();
  return Number(row?.n ?? 0);
}

export async function findApiKey(db: Knex, key: string): Promise<ApiKeyRecord | undefined> {
  return db('api_keys')
    .select('id', 'account_id', 'livemode', 'last4', 'created_at')
    .where({ key_hash: hashApiKey(key) })
    .whereNull('revoked_at')
    .first();
}

export async function listApiKeys(db: Knex, accountId: string, livemode: boolean): Promise<ApiKeyRecord[]> {
  return db('api_keys')
    .select('id', 'account_id', 'livemode', 'last4', 'created_at')
    .where({ account_id: accountId, livemode })
    .whereNull('revoked_at')
    .orderBy('created_at', 'desc');
}

export async function revokeApiKey(db: Knex, accountId: string, livemode: boolean, id: string): Promise<boolean> {
  const n = await db('api_keys').where({ id, account_id: accountId, livemode }).whereNull('revoked_at').update({ revoked_at: new Date() });
  return n > 0;
}

interface UserRecord {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
}

export async function findUserByEmail(db: Knex, email: string): Promise<UserRecord | undefined> {
  return db('users').where({ email: email.toLowerCase() }).first();
}

export async function findUserById(db: Knex, id: string): Promise<UserRecord | undefined> {
  return db('users').where({ id }).first();
}

/** A user's new password, hashed as every password is. Answers whether there is such a user. */
export async function setPassword(db: Knex, email: string, password: string): Promise<boolean> {
  const passwordHash = await hashPassword(password);
  return (await db('users').where({ email: email.toLowerCase() }).update({ password_hash: passwordHash })) > 0;
}

export class EmailTakenError extends Error {}

/** An account with one user and one test and one live key (docs/commands.md: `admin create-account`). */
export async function createAccount(db: Knex, email: string, password: string) {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (trx) => {
    if (await findUserByEmail(trx, email)) throw new EmailTakenError(`an account with e-mail ${email} already exists`);
    const accountId = `acct_${ulid()}`;
    await trx('accounts').insert({ id: accountId, name: email });
    await trx('users').insert({ id: `user_${ulid()}`, account_id: accountId, email: email.toLowerCase(), password_hash: passwordHash });
    const test = await createApiKey(trx, accountId, false);
    const live = await createApiKey(trx, accountId, true);
    return { account_id: accountId, email: email.toLowerCase(), test_api_key: test.key, live_api_key: live.key };
  });
}

export async function countAccounts(db: Knex): Promise<number> {
  const [{ count }] = await db('accounts').count({ count: '*' });
  return Number(count);
}
