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
 *
 * One statement, `take_endpoint_lease` (migrations/20261127220000_endpoint_lease_functions.js): the
 * row lock is held for the function's duration only, not across client round trips, so attempts to
 * one endpoint queue on it for a statement each. Times are the database's clock.
 */
export async function takeLease(db: Knex, { deliveryId, webhookId, limit, leaseMs, run }: LeaseRequest): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { taken: boolean }[] }>(
    'SELECT take_endpoint_lease(?::text, ?::text, ?::integer, ?::double precision, ?::text) AS taken',
    [deliveryId, webhookId, limit, leaseMs, run ?? null],
  );
  return rows[0].taken;
}

/**
 * The attempt ended: its lease goes to the configuration's longest waiter in the durable line, if
 * any, for `handMs` (time for its run to make the attempt); the waiter is returned to be woken (its
 * delivery id and the workflow to wake). With nobody in line the lease is simply free.
 *
 * Under the configuration's row lock, as takeLease: a delivery joins the line either before this
 * release (and is handed the lease) or after (and finds it free). One statement,
 * `release_endpoint_lease`, for the same reason as takeLease's.
 */
export async function releaseLease(
  db: Knex,
  deliveryId: string,
  webhookId: string,
  handMs: number,
): Promise<{ deliveryId: string; run: string } | undefined> {
  const { rows } = await db.raw<{ rows: { delivery_id: string; run: string }[] }>(
    'SELECT delivery_id, run FROM release_endpoint_lease(?::text, ?::text, ?::double precision)',
    [deliveryId, webhookId, handMs],
  );
  const [next] = rows as ({ delivery_id: string; run: string } | undefined)[];
  return next && { deliveryId: next.delivery_id, run: next.run };
}
