/**
 * Leases on webhook endpoints (docs/webhooks.md, "No tenant slows another"): an attempt in flight
 * holds one until it ends or its time runs out, at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT per
 * configuration.
 */
import type { Knex } from 'knex';

/**
 * An attempt's lease on its endpoint (docs/webhooks.md, "No tenant slows another"): taken when fewer
 * than `limit` of the configuration's deliveries hold an unexpired one, under the configuration's
 * row lock so that concurrent attempts count each other. False when the endpoint is full.
 */
export async function takeLease(db: Knex, deliveryId: string, webhookId: string, limit: number, leaseMs: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    await trx('webhooks').where({ id: webhookId }).forUpdate().first('id');
    const now = new Date();
    const row = (await trx('webhook_deliveries')
      .where({ webhook_id: webhookId })
      .whereNot({ id: deliveryId })
      .andWhere('in_flight_until', '>', now)
      .count('* as n')
      .first()) as { n: string | number } | undefined;
    if (Number(row?.n ?? 0) >= limit) return false;
    await trx('webhook_deliveries')
      .where({ id: deliveryId })
      .update({ in_flight_until: new Date(now.getTime() + leaseMs) });
    return true;
  });
}

/** The attempt ended: its lease goes. */
export async function releaseLease(db: Knex, deliveryId: string): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId }).update({ in_flight_until: null });
}
