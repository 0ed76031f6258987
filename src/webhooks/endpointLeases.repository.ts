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

/** A lease taken, or the endpoint full: then how long the oldest attempt in flight there has run. */
export type LeaseAnswer = { taken: true } | { taken: false; oldestInFlightMs: number };

/**
 * Takes a lease on the endpoint when fewer than `limit` other unexpired leases are held, dropping
 * the expired ones (a worker that died). One UPDATE of the configuration's row, whose `in_flight`
 * (delivery id → lease end) is the whole state: a concurrent UPDATE waits for the row and then
 * re-reads its new value (PostgreSQL re-checks the WHERE on the row it updates), so two attempts
 * never both take the last lease. Times are the database's clock. A full endpoint answers, in the
 * same statement, how long its oldest lease has run (its end less `leaseMs`: every attempt to one
 * configuration leases for its time-out); the turned-away attempt waits about that long.
 */
export async function takeLease(db: Knex, { deliveryId, webhookId, limit, leaseMs }: LeaseRequest): Promise<LeaseAnswer> {
  const { rows } = await db.raw<{ rows: { taken: boolean; oldest_in_flight_ms: number | null }[] }>(
    `WITH d AS (SELECT ?::text AS id, ?::double precision AS lease_ms, ?::integer AS lim, ?::text AS webhook_id),
     taken AS (
       UPDATE webhooks w
          SET in_flight = (SELECT coalesce(jsonb_object_agg(l.key, l.value), '{}'::jsonb)
                             FROM jsonb_each_text(w.in_flight) AS l
                            WHERE l.key <> d.id AND l.value::timestamptz > clock_timestamp())
                          || jsonb_build_object(d.id, clock_timestamp() + d.lease_ms * interval '1 millisecond')
         FROM d
        WHERE w.id = d.webhook_id
          AND (SELECT count(*) FROM jsonb_each_text(w.in_flight) AS l
                WHERE l.key <> d.id AND l.value::timestamptz > clock_timestamp()) < d.lim
       RETURNING w.id)
     SELECT EXISTS (SELECT 1 FROM taken) AS taken,
            CASE WHEN NOT EXISTS (SELECT 1 FROM taken) THEN
              (SELECT d.lease_ms - extract(epoch FROM min(l.value::timestamptz) - clock_timestamp()) * 1000
                 FROM webhooks w CROSS JOIN jsonb_each_text(w.in_flight) AS l
                WHERE w.id = d.webhook_id AND l.key <> d.id AND l.value::timestamptz > clock_timestamp())
            END AS oldest_in_flight_ms
       FROM d`,
    [deliveryId, leaseMs, limit, webhookId],
  );
  const [answer] = rows;
  if (answer.taken) return { taken: true };
  // No row at all (a configuration deleted meanwhile): the next attempt, made soon, finds it gone.
  return { taken: false, oldestInFlightMs: Math.max(0, answer.oldest_in_flight_ms ?? 0) };
}

/** The attempt's exchange with the receiver ended: its lease is free at once. One UPDATE, as takeLease. */
export async function releaseLease(db: Knex, deliveryId: string, webhookId: string): Promise<void> {
  await db.raw('UPDATE webhooks SET in_flight = in_flight - ?::text WHERE id = ?', [deliveryId, webhookId]);
}
