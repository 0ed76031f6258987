/**
 * Leases on webhook endpoints (docs/webhooks.md, "No tenant slows another"): an attempt in flight
 * holds one until it ends or its time runs out, at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT per
 * configuration. A delivery that finds its endpoint full waits in the endpoint's durable line; a
 * freed lease is free at once (an attempt already running takes it, so the endpoint is never idle
 * while deliveries wait) and wakes the line's longest waiter not already woken, which keeps its place
 * until it takes a lease.
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
 * deliveries hold an unexpired one, under the configuration's row lock so that concurrent attempts
 * count each other. False when the endpoint is full: with `run`, the delivery is then in line (at the
 * place it already had, if woken and full again).
 *
 * One statement, `take_endpoint_lease` (migrations/20261129010000_endpoint_line_wakes.js): the
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
 * The attempt ended: its lease is free, and the configuration's longest waiter in the durable line
 * not woken in the last `wakeMs` is returned to be woken (its delivery id and the workflow to wake).
 * The delivery leaves the line too: a waiter whose run cannot be woken is released so.
 *
 * Under the configuration's row lock, as takeLease: a delivery joins the line either before this
 * release (and is woken by it) or after (and finds the lease free). One statement,
 * `release_endpoint_lease` (migrations/20261129010000_endpoint_line_wakes.js), for the same reason
 * as takeLease's.
 */
export async function releaseLease(
  db: Knex,
  deliveryId: string,
  webhookId: string,
  wakeMs: number,
): Promise<{ deliveryId: string; run: string } | undefined> {
  const { rows } = await db.raw<{ rows: { delivery_id: string; run: string }[] }>(
    'SELECT delivery_id, run FROM release_endpoint_lease(?::text, ?::text, ?::double precision)',
    [deliveryId, webhookId, wakeMs],
  );
  const [next] = rows as ({ delivery_id: string; run: string } | undefined)[];
  return next && { deliveryId: next.delivery_id, run: next.run };
}

/**
 * A transition's deliveries whose endpoints are already full join their endpoints' lines, in the
 * order given (a configuration's deliveries in the transition's order); the answer is the ids of
 * those now in line, whose series begin by waiting for their turn. One statement,
 * `join_full_endpoint_line` per delivery (migrations/20261129070000_endpoint_line_at_publication.js):
 * an endpoint with room answers without a lock; a full one is counted again under the
 * configuration's row lock, as takeLease counts.
 */
export async function joinFullEndpointLines(
  db: Knex,
  deliveries: { deliveryId: string; webhookId: string }[],
  limit: number,
  run: string,
): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `SELECT t.id FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS t(id, webhook_id, n)
      WHERE join_full_endpoint_line(t.id, t.webhook_id, ?::integer, ?::text) ORDER BY t.n`,
    [deliveries.map((d) => d.deliveryId), deliveries.map((d) => d.webhookId), limit, run],
  );
  return new Set(rows.map((r) => r.id));
}
