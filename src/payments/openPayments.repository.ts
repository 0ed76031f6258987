/**
 * Open (non-terminal) payments per account and mode (docs/security.md, "Quotas"): the count a
 * trigger keeps on `payments` (migrations/20261127010000_limits.js) plus the claims of creates
 * whose row is not written yet. A create claims its place before its workflow starts.
 */
import type { Knex } from 'knex';
import type { Scope } from '../tenants/tenancy.rules';

/**
 * A claim whose payment never got a row stops counting after this: longer than any create takes to
 * start its workflow and write the row (the workflow's own first step writes it too).
 */
const CLAIM_LIFETIME_MINUTES = 10;

/**
 * Take a place for `paymentId` among the scope's open payments, unless `limit` are open or claimed:
 * counted and added under the count row's lock, so concurrent creates cannot pass the limit together.
 * A retry of a create that already claimed or wrote its payment keeps its place. One statement,
 * `claim_open_payment` (migrations/20261129120000_claim_open_payment_function.js): the lock is held
 * for the function only, never across client round trips.
 */
export async function claimOpenPayment(db: Knex, scope: Scope, paymentId: string, limit: number): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { claimed: boolean }[] }>(
    'SELECT claim_open_payment(?::text, ?::boolean, ?::text, ?::integer, ?::integer) AS claimed',
    [scope.accountId, scope.livemode, paymentId, limit, CLAIM_LIFETIME_MINUTES],
  );
  return rows[0].claimed;
}

/** Claims older than their lifetime (their creates died before starting anything): deleted in passing. */
export async function purgeStaleClaims(db: Knex): Promise<number> {
  return db('payment_claims').whereRaw('created_at < now() - make_interval(mins => ?)', [CLAIM_LIFETIME_MINUTES]).delete();
}
