/**
 * Leases on webhook endpoints (docs/webhooks.md, "No tenant slows another"): an attempt in flight
 * holds one until it ends or its time runs out, at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT per
 * configuration. An endpoint's line is first come, first served: a freed lease is handed to the
 * longest waiter of the durable line before anyone else may take it.
 */
import type { Knex } from 'knex';

/**
 * How a lease was asked for: `run` names the workflow to wake when the delivery joins the durable
 * line; without it, a full endpoint only answers false (the attempt waits a moment on its own).
 */
export interface LeaseRequest {
  deliveryId: string;
  webhookId: string;
  limit: number;
  leaseMs: number;
  run?: string;
}

/**
 * An attempt's lease on its endpoint: taken when fewer than `limit` of the configuration's other
 * deliveries hold an unexpired one and nobody waits in the durable line, under the configuration's
 * row lock so that concurrent attempts count each other. A delivery the line's last release handed
 * its lease to (still unexpired) takes it whatever the count. False when the endpoint is full.
 */
export async function takeLease(db: Knex, { deliveryId, webhookId, limit, leaseMs, run }: LeaseRequest): Promise<boolean> {
  return db.transaction(async (trx) => {
    await trx('webhooks').where({ id: webhookId }).forUpdate().first('id');
    const now = new Date();
    const { rows } = await trx.raw<{ rows: { handed: boolean; busy: string; waiting: boolean }[] }>(
      `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = :deliveryId AND in_flight_until > :now) AS handed,
              (SELECT count(*) FROM webhook_deliveries
                WHERE webhook_id = :webhookId AND id <> :deliveryId AND in_flight_until > :now) AS busy,
              EXISTS (SELECT 1 FROM webhook_deliveries
                WHERE webhook_id = :webhookId AND id <> :deliveryId AND waiting_since IS NOT NULL) AS waiting`,
      { deliveryId, webhookId, now },
    );
    const [seen] = rows;
    const free = seen.handed || (Number(seen.busy) < limit && !seen.waiting);
    if (!free) {
      // In line once: a delivery woken and full again keeps its place.
      if (run !== undefined)
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
 * The attempt ended: its lease goes to the configuration's longest waiter in the durable line, if
 * any, for `handMs` (time for its run to make the attempt); the waiter is returned to be woken (its
 * delivery id and the workflow to wake). With nobody in line the lease is simply free.
 */
export async function releaseLease(
  db: Knex,
  deliveryId: string,
  webhookId: string,
  handMs: number,
): Promise<{ deliveryId: string; run: string } | undefined> {
  // Under the configuration's row lock, as takeLease: a delivery joins the line either before this
  // release (and is handed the lease) or after (and finds it free).
  return db.transaction(async (trx) => {
    await trx('webhooks').where({ id: webhookId }).forUpdate().first('id');
    await trx('webhook_deliveries').where({ id: deliveryId }).update({ in_flight_until: null });
    const { rows } = await trx.raw<{ rows: { id: string; waiting_run: string }[] }>(
      `WITH next AS (
         SELECT id, waiting_run FROM webhook_deliveries
          WHERE webhook_id = ? AND waiting_since IS NOT NULL
          ORDER BY waiting_since LIMIT 1)
       UPDATE webhook_deliveries d SET waiting_since = NULL, waiting_run = NULL, in_flight_until = ? FROM next
        WHERE d.id = next.id RETURNING d.id, next.waiting_run`,
      [webhookId, new Date(Date.now() + handMs)],
    );
    const [next] = rows as ({ id: string; waiting_run: string } | undefined)[];
    return next && { deliveryId: next.id, run: next.waiting_run };
  });
}
