/**
 * The webhook delivery repository: the delivery log, its series' claims, and the failure window
 * that disables a configuration. Each attempt is logged by ./attemptLog.ts; the deliveries an event
 * owes are recorded by src/webhooks/deliveryPlan.repository.ts (`planDeliveries`; with the projection, `projectAndPlan` in projection.ts).
 */
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { AttemptFields, DELIVERY_STATUSES } from './delivery.view';
import type { Envelope } from './webhookEnvelope.view';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from '../platform/database/pagination';
import { type WebhookWithSecret, webhookForSigning } from './webhookConfigurations.repository';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  payment_id: string | null;
  event: string;
  body: string;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  /** The running series of attempts (`original`, or a resend's workflow id); null when none runs. */
  series: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One logged attempt, as stored. */
interface AttemptRow extends AttemptFields {
  delivery_id: string;
}

/** A delivery outside a payment's run (`payment.test`) to one configuration. */
export async function createSingleDelivery(db: Knex, webhookId: string, envelope: Envelope): Promise<string> {
  const id = `dlv_${ulid()}`;
  await db('webhook_deliveries').insert({
    id,
    webhook_id: webhookId,
    payment_id: envelope.payment_id,
    event: envelope.event,
    body: JSON.stringify(envelope),
  });
  return id;
}

/** A delivery as an attempt needs it, and its configuration with the secrets for signing. */
export interface LoadedDelivery {
  delivery: Pick<DeliveryRow, 'id' | 'webhook_id' | 'payment_id' | 'event' | 'body' | 'status' | 'attempts' | 'series'>;
  webhook: WebhookWithSecret;
}

export async function loadDelivery(db: Knex, id: string, key: Buffer): Promise<LoadedDelivery | undefined> {
  const delivery = await db<DeliveryRow>('webhook_deliveries').where({ id }).first();
  if (!delivery) return undefined;
  const webhook = await webhookForSigning(db, delivery.webhook_id, key);
  return webhook && { delivery, webhook };
}

/**
 * Whether every attempt to this configuration has failed for at least `windowMs`: it has failed
 * attempts that old, and none succeeded since the first of them.
 */
export async function failingSince(db: Knex, webhookId: string, windowMs: number): Promise<boolean> {
  const row = await db('webhook_delivery_attempts as a')
    .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .where('d.webhook_id', webhookId)
    .select(
      db.raw('max(a.at) filter (where a.status_code between 200 and 299) as last_success'),
      db.raw("min(a.at) filter (where a.error is not null and a.error not like 'endpoint busy:%') as first_failure"),
    )
    .first();
  const lastSuccess = row?.last_success as Date | null | undefined;
  const firstFailure = row?.first_failure as Date | null | undefined;
  if (!firstFailure) return false;
  const failingFrom = lastSuccess
    ? (
        (await db('webhook_delivery_attempts as a')
          .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
          .where('d.webhook_id', webhookId)
          .whereNotNull('a.error')
          // A full endpoint's turned-away attempts say nothing of the receiver.
          .andWhereNot('a.error', 'like', 'endpoint busy:%')
          .andWhere('a.at', '>', lastSuccess)
          .min('a.at as at')
          .first()) as { at: Date | null } | undefined
      )?.at
    : firstFailure;
  return failingFrom != null && Date.now() - failingFrom.getTime() >= windowMs;
}

/** A claim's outcome: the status to give back if its workflow does not start, or the series that runs instead (and since when it is claimed). */
export type SeriesClaim = { previous: DeliveryRow['status'] } | { running: string; claimedAt: Date };

/** A series whose claim may be replaced: its name, and when given, the time its claim must be older than. */
export interface StaleSeries {
  series: string;
  claimedBefore?: Date;
}

/**
 * Start a new series of attempts for a delivery, named `series`: pending again, unless a series
 * runs already (other than `replacing`, a stale one whose workflow never ran or has ended).
 */
export async function claimSeries(db: Knex, id: string, series: string, replacing?: StaleSeries): Promise<SeriesClaim> {
  return db.transaction(async (trx) => {
    const row = await trx<DeliveryRow>('webhook_deliveries').where({ id }).forUpdate().first('series', 'status', 'updated_at');
    if (!row) return { running: series, claimedAt: new Date() };
    const stale =
      replacing !== undefined &&
      row.series === replacing.series &&
      (replacing.claimedBefore === undefined || row.updated_at < replacing.claimedBefore);
    if (row.series !== null && !stale) return { running: row.series, claimedAt: row.updated_at };
    await trx('webhook_deliveries').where({ id }).update({ series, status: 'pending', updated_at: new Date() });
    // A stale series ended without a success, as endSeries would have recorded.
    return { previous: row.series === null ? row.status : 'failed' };
  });
}

/** A claimed series whose workflow did not start: the delivery is free again, with the status it had. */
export async function releaseSeries(db: Knex, id: string, series: string, status: DeliveryRow['status']): Promise<void> {
  await db('webhook_deliveries').where({ id, series }).update({ series: null, status, updated_at: new Date() });
}

/** A delivery no series ever attempted (its workflow did not start): it goes, as if never made. */
export async function dropUnattempted(db: Knex, id: string): Promise<void> {
  await db('webhook_deliveries').where({ id, attempts: 0 }).delete();
}

/**
 * A series that ended without a final attempt (its activity gave up, or the delivery was not
 * found): the delivery is free for the next series, and failed if it was still pending.
 */
export async function endSeries(db: Knex, id: string, series: string): Promise<void> {
  await db('webhook_deliveries')
    .where({ id, series })
    .update({ series: null, status: db.raw(`CASE WHEN status = 'pending' THEN 'failed' ELSE status END`), updated_at: new Date() });
}

export async function findDelivery(db: Knex, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  return db<DeliveryRow>('webhook_deliveries').where({ id, webhook_id: webhookId }).first();
}

/**
 * Deliveries to recover: those created since `since` that failed and have no series running, oldest
 * first, at most `limit` (a delivery still being retried is its running series' to finish).
 */
export async function failedDeliveriesSince(
  db: Knex,
  webhookId: string,
  since: Date,
  limit: number,
): Promise<{ id: string; attempts: number }[]> {
  return db('webhook_deliveries')
    .where({ webhook_id: webhookId, status: 'failed' })
    .whereNull('series')
    .andWhere('created_at', '>=', since)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit)
    .select('id', 'attempts');
}

/** How many deliveries of the configuration since `since` are still pending (their series running or waiting). */
export async function pendingDeliveriesSince(db: Knex, webhookId: string, since: Date): Promise<number> {
  const [row] = await db('webhook_deliveries')
    .where({ webhook_id: webhookId, status: 'pending' })
    .andWhere('created_at', '>=', since)
    .count({ n: '*' });
  return Number(row.n);
}

/** A delivery that will never be attempted (its configuration was deleted): its series ends. */
export async function markSkipped(db: Knex, deliveryId: string): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId }).update({ status: 'skipped', series: null, updated_at: new Date() });
}
export interface DeliveryFilter extends PageRequest, CreatedRange {
  status?: DeliveryRow['status'];
  paymentId?: string;
}

/** A delivery with its attempts, oldest first. */
export interface LoggedDelivery {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}

/** A configuration's delivery log, newest first, each delivery with its attempts. */
export async function listDeliveries(db: Knex, webhookId: string, filter: DeliveryFilter) {
  const page = await pageOf<DeliveryRow>(
    'webhook_deliveries',
    () => db('webhook_deliveries').where({ webhook_id: webhookId }),
    (q) => {
      let filtered = filter.status ? q.andWhere('status', filter.status) : q;
      if (filter.paymentId) filtered = filtered.andWhere('payment_id', filter.paymentId);
      return withinCreated(filtered, filter);
    },
    filter,
  );
  if ('cursorNotFound' in page) return page;
  return { data: await withAttempts(db, page.rows), hasMore: page.hasMore };
}

/** One delivery of a configuration, with its attempts. */
export async function getDelivery(db: Knex, webhookId: string, id: string): Promise<LoggedDelivery | undefined> {
  const row = await findDelivery(db, webhookId, id);
  return row && (await withAttempts(db, [row]))[0];
}

async function withAttempts(db: Knex, rows: DeliveryRow[]): Promise<LoggedDelivery[]> {
  const ids = rows.map((d) => d.id);
  const attempts: AttemptRow[] = ids.length
    ? await db('webhook_delivery_attempts').whereIn('delivery_id', ids).orderBy(['delivery_id', 'attempt'])
    : [];
  return rows.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id) }));
}
