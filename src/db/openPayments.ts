/**
 * Open (non-terminal) payments per account and mode (docs/security.md, "Quotas"): the count a
 * trigger keeps on `payments` (migrations/20261127010000_limits.js) plus the claims of creates
 * whose row is not written yet. A create claims its place before its workflow starts.
 */
import type { Knex } from 'knex';
import type { Scope } from '../domain/tenancy';

/**
 * A claim whose payment never got a row stops counting after this: longer than any create takes to
 * start its workflow and write the row (the workflow's own first step writes it too).
 */
const CLAIM_LIFETIME_MINUTES = 10;

const scopeRow = (scope: Scope) => ({ account_id: scope.accountId, livemode: scope.livemode });

/**
 * Take a place for `paymentId` among the scope's open payments, unless `limit` are open or claimed:
 * counted and added under the count row's lock, so concurrent creates cannot pass the limit together.
 * A retry of a create that already claimed or wrote its payment keeps its place.
 */
export async function claimOpenPayment(db: Knex, scope: Scope, paymentId: string, limit: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    await trx('open_payment_counts')
      .insert({ ...scopeRow(scope), open: 0 })
      .onConflict(['account_id', 'livemode'])
      .ignore();
    const counted = await trx('open_payment_counts').where(scopeRow(scope)).forUpdate().first<{ open: number }>('open');
    if ((await trx('payment_claims').where({ payment_id: paymentId }).first('payment_id')) !== undefined) return true;
    if ((await trx('payments').where({ id: paymentId }).first('id')) !== undefined) return true;
    const claims = await trx('payment_claims')
      .where(scopeRow(scope))
      .andWhereRaw('created_at > now() - make_interval(mins => ?)', [CLAIM_LIFETIME_MINUTES])
      .count<{ n: string }>('* as n')
      .first();
    if (counted.open + Number(claims?.n ?? 0) >= limit) return false;
    await trx('payment_claims').insert({ ...scopeRow(scope), payment_id: paymentId });
    return true;
  });
}

/** Claims older than their lifetime (their creates died before starting anything): deleted in passing. */
export async function purgeStaleClaims(db: Knex): Promise<number> {
  return db('payment_claims').whereRaw('created_at < now() - make_interval(mins => ?)', [CLAIM_LIFETIME_MINUTES]).delete();
}
