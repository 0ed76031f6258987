/** The idempotency key repository: claims, stored answers, failed attempts and expired keys. */
import type { Knex } from 'knex';
import type { Scope } from '../../tenants/tenancy.rules';

type Claim =
  /** Go ahead; `resourceId` is the id to give whatever this request creates, the same on every retry. */
  /** `retry`: the key's earlier attempt failed or was abandoned, so what it started may already exist. */
  | { kind: 'claimed'; resourceId: string; retry: boolean }
  | { kind: 'replay'; status: number; body: unknown }
  /** Another request with this key has not finished (or its process died before it could say). */
  | { kind: 'in_progress'; resourceId: string }
  | { kind: 'conflict'; message: string };

/** Longer than any request can run (Temporal calls give up after 10 s). */
const STALE_CLAIM_MS = 60_000;
/** Keys live 24 hours (docs/api.md, "Errors and limits"): an older key is a new key. */
const KEY_TTL_HOURS = 24;

/**
 * What is stored in place of an answer that holds a secret (a new API key, a webhook secret):
 * secrets are shown once and never kept for replay.
 */
export const SECRET_WITHHELD = { secret_withheld: true } as const;

/** Expired keys deleted in passing by each claim, oldest first: more than a claim adds, so they cannot pile up. */
const PASSING_BATCH = 100;
/** Expired keys deleted per statement by the purge, which repeats until none is left. */
const PURGE_BATCH = 1000;

const where = (scope: Scope, key: string) => ({ account_id: scope.accountId, livemode: scope.livemode, key });

/**
 * Claim an Idempotency-Key for a request, or learn what the first request with it answered.
 * A key whose request failed on our side is claimable again, with the resource id it had.
 */
export async function claimIdempotencyKey(
  db: Knex,
  scope: Scope,
  key: string,
  /** The parsed request's hash (src/platform/http/idempotency.middleware.ts). */
  requestHash: string,
  newResourceId: () => string,
): Promise<Claim> {
  const resourceId = newResourceId();
  // Expired keys are forgotten: this one now, the oldest others in passing.
  await db('idempotency_keys').where(where(scope, key)).andWhereRaw(`created_at < now() - interval '${KEY_TTL_HOURS} hours'`).delete();
  await deleteExpiredBatch(db, PASSING_BATCH);
  const inserted = await db('idempotency_keys')
    .insert({ ...where(scope, key), request_hash: requestHash, resource_id: resourceId })
    .onConflict(['account_id', 'livemode', 'key'])
    .ignore()
    .returning('key');
  if (inserted.length > 0) return { kind: 'claimed', resourceId, retry: false };
  const row = await db('idempotency_keys').where(where(scope, key)).first();
  if (row.request_hash !== requestHash) return { kind: 'conflict', message: 'this Idempotency-Key was used with a different request' };
  if (row.status_code != null)
    return { kind: 'replay', status: row.status_code, body: row.response_body == null ? null : JSON.parse(row.response_body) };
  // A failed claim, or one abandoned by a process that died mid-request, is taken over atomically:
  // of two concurrent retries, one wins.
  // Staleness by the database's clock, the same clock that stamped the claim.
  const takenOver = await db('idempotency_keys')
    .where(where(scope, key))
    .whereNull('status_code')
    .andWhere((w) => w.whereNotNull('failed_at').orWhereRaw('claimed_at < now() - make_interval(secs => ?)', [STALE_CLAIM_MS / 1000]))
    .update({ failed_at: null, claimed_at: db.fn.now(), resource_id: db.raw("coalesce(nullif(resource_id, ''), ?)", [resourceId]) })
    .returning('resource_id');
  if (takenOver.length > 0) return { kind: 'claimed', resourceId: takenOver[0].resource_id, retry: true };
  return { kind: 'in_progress', resourceId: row.resource_id };
}

/** Record the answer to replay; JSON text, so any bytes a client sent can be stored. */
export async function completeIdempotencyKey(db: Knex, scope: Scope, key: string, status: number, body: unknown): Promise<void> {
  await db('idempotency_keys')
    .where(where(scope, key))
    .update({ status_code: status, response_body: JSON.stringify(body ?? null), failed_at: null });
}

/**
 * Delete up to `batch` expired keys, oldest first, on the created_at index. Rows another statement
 * is deleting are skipped, so concurrent claims and purges never wait on each other.
 */
async function deleteExpiredBatch(db: Knex, batch: number): Promise<number> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `DELETE FROM idempotency_keys WHERE (account_id, livemode, key) IN (
       SELECT account_id, livemode, key FROM idempotency_keys WHERE created_at < now() - interval '${KEY_TTL_HOURS} hours'
       ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)
     RETURNING 1`,
    [batch],
  );
  return rows.length;
}

/** Forget every key past its lifetime, a batch per statement (each API process runs it at start and hourly). */
export async function purgeExpiredIdempotencyKeys(db: Knex): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteExpiredBatch(db, PURGE_BATCH);
    deleted += n;
    if (n < PURGE_BATCH) return deleted;
  }
}

/** The request failed on our side: the same key may be retried, and keeps its resource id. */
export async function failIdempotencyKey(db: Knex, scope: Scope, key: string): Promise<void> {
  await db('idempotency_keys').where(where(scope, key)).whereNull('status_code').update({ failed_at: new Date() });
}
