/**
 * The per-endpoint cap (docs/webhooks.md, "No tenant slows another"): an attempt in flight holds a
 * lease on its configuration until it ends or its time runs out, at most
 * WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT per configuration. An attempt that finds the endpoint full is
 * answered "busy" and Temporal retries it later: no line, no waiter, no wake-up of our own.
 */
import type { Knex } from 'knex';

export interface LeaseRequest {
  deliveryId: string;
  webhookId: string;
  limit: number;
  leaseMs: number;
}

/**
 * Takes a lease on the endpoint when fewer than `limit` other unexpired leases are held, dropping
 * the expired ones (a worker that died). One UPDATE of the configuration's row, whose `in_flight`
 * (delivery id → lease end) is the whole state: a concurrent UPDATE waits for the row and then
 * re-reads its new value (PostgreSQL re-checks the WHERE on the row it updates), so two attempts
 * never both take the last lease. Times are the database's clock.
 */
export async function takeLease(db: Knex, { deliveryId, webhookId, limit, leaseMs }: LeaseRequest): Promise<boolean> {
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `UPDATE webhooks w
        SET in_flight = (SELECT coalesce(jsonb_object_agg(l.key, l.value), '{}'::jsonb)
                           FROM jsonb_each_text(w.in_flight) AS l
                          WHERE l.key <> d.id AND l.value::timestamptz > clock_timestamp())
                        || jsonb_build_object(d.id, clock_timestamp() + d.lease_ms * interval '1 millisecond')
       FROM (SELECT ?::text AS id, ?::double precision AS lease_ms, ?::integer AS lim) AS d
      WHERE w.id = ?
        AND (SELECT count(*) FROM jsonb_each_text(w.in_flight) AS l
              WHERE l.key <> d.id AND l.value::timestamptz > clock_timestamp()) < d.lim`,
    [deliveryId, leaseMs, limit, webhookId],
  );
  return rowCount === 1;
}

/** The attempt's exchange with the receiver ended: its lease is free at once. One UPDATE, as takeLease. */
export async function releaseLease(db: Knex, deliveryId: string, webhookId: string): Promise<void> {
  await db.raw('UPDATE webhooks SET in_flight = in_flight - ?::text WHERE id = ?', [deliveryId, webhookId]);
}
