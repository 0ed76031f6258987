/**
 * Leases on webhook endpoints (docs/webhooks.md, "No tenant slows another"): an attempt in flight
 * holds one until it ends or its time runs out, at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT per
 * configuration.
 */
import type { Knex } from 'knex';

/**
 * An attempt's lease on its endpoint (docs/webhooks.md, "No tenant slows another"): taken when fewer
 * than `limit` of the configuration's deliveries hold an unexpired one, under the configuration's
 * row lock so that concurrent attempts count each other. False when the endpoint is full: the
 * delivery then waits in line, `run` (the workflow to wake) woken when an attempt there ends.
 */
export async function takeLease(
  db: Knex,
  deliveryId: string,
  webhookId: string,
  limit: number,
  leaseMs: number,
  run: string,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    await trx('webhooks').where({ id: webhookId }).forUpdate().first('id');
    const now = new Date();
    const row = (await trx('webhook_deliveries')
      .where({ webhook_id: webhookId })
      .whereNot({ id: deliveryId })
      .andWhere('in_flight_until', '>', now)
      .count('* as n')
      .first()) as { n: string | number } | undefined;
    if (Number(row?.n ?? 0) >= limit) {
      // In line once: a delivery woken and full again keeps its place.
      await trx('webhook_deliveries')
        .where({ id: deliveryId })
        .update({ waiting_since: trx.raw('coalesce(waiting_since, ?)', [now]), waiting_run: run });
      return false;
    }
    await trx('webhook_deliveries')
      .where({ id: deliveryId })
      .update({ in_flight_until: new Date(now.getTime() + leaseMs), waiting_since: null, waiting_run: null });
    return true;
  });
}

/**
 * The attempt ended: its lease goes, and the configuration's longest waiter, if any, is taken out of
 * line to be woken (its delivery id and the workflow to wake).
 */
export async function releaseLease(
  db: Knex,
  deliveryId: string,
  webhookId: string,
): Promise<{ deliveryId: string; run: string } | undefined> {
  // Under the configuration's row lock, as takeLease: a delivery joins the line either before this
  // release (and is woken by it) or after (and finds the lease free).
  return db.transaction(async (trx) => {
    await trx('webhooks').where({ id: webhookId }).forUpdate().first('id');
    await trx('webhook_deliveries').where({ id: deliveryId }).update({ in_flight_until: null });
    const { rows } = await trx.raw<{ rows: { id: string; waiting_run: string }[] }>(
      `WITH next AS (
         SELECT id, waiting_run FROM webhook_deliveries
          WHERE webhook_id = ? AND waiting_since IS NOT NULL
          ORDER BY waiting_since LIMIT 1)
       UPDATE webhook_deliveries d SET waiting_since = NULL, waiting_run = NULL FROM next
        WHERE d.id = next.id RETURNING d.id, next.waiting_run`,
      [webhookId],
    );
    const [next] = rows as ({ id: string; waiting_run: string } | undefined)[];
    return next && { deliveryId: next.id, run: next.waiting_run };
  });
}
