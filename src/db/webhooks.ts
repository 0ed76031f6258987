import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { PaymentEvent } from '../domain/payment';
import { openWebhookSecret, sealWebhookSecret } from '../webhooks/secretBox';
import type { Scope } from '../domain/tenancy';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from './pagination';
import { webhookAttemptLeaf } from '../domain/audit';
import { appendLeaf } from './audit';

/** A webhook configuration as the service uses it. The secret, where present, is the clear one. */
export interface WebhookRow {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  events: string[];
  active: boolean;
  /** Why the service turned it off (null when on, or turned off through the API). */
  disabled_reason: string | null;
  created_at: Date;
  deleted_at: Date | null;
}
export type WebhookWithSecret = WebhookRow & {
  secret: string;
  /** During a rotation's overlap: the previous secret, which still signs beside the new one. */
  previousSecret?: string;
};

/**
 * The table's row: the secret is stored sealed (AES-256-GCM, src/webhooks/secretBox.ts) in
 * `secret_sealed`. `secret` holds a clear secret only for rows written before encryption, until
 * the first read seals them.
 */
interface StoredWebhook extends WebhookRow {
  secret: string | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

const COLUMNS = ['id', 'account_id', 'livemode', 'url', 'events', 'active', 'disabled_reason', 'created_at', 'deleted_at'] as const;
const withoutSecret = (row: StoredWebhook): WebhookRow => Object.fromEntries(COLUMNS.map((c) => [c, row[c]])) as unknown as WebhookRow;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks: the part after the prefix is the base64 key). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Decrypt a stored row's secret; a clear secret left from before encryption is sealed now. */
async function reveal(db: Knex, row: StoredWebhook, key: Buffer): Promise<WebhookWithSecret> {
  if (row.secret_sealed) return { ...withoutSecret(row), secret: openWebhookSecret(row.secret_sealed, row.id, key) };
  if (row.secret === null) throw new Error(`webhook ${row.id} has no secret`);
  await db('webhooks')
    .where({ id: row.id, secret: row.secret })
    .update({ secret_sealed: sealWebhookSecret(row.secret, row.id, key), secret: null });
  return { ...withoutSecret(row), secret: row.secret };
}

export async function createWebhook(db: Knex, key: Buffer, scope: Scope, url: string, events: string[]): Promise<WebhookWithSecret> {
  const id = `wh_${ulid()}`;
  const secret = newWebhookSecret();
  const [row] = await db<StoredWebhook>('webhooks')
    .insert({
      id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      url,
      events,
      secret: null,
      secret_sealed: sealWebhookSecret(secret, id, key),
      active: true,
    })
    .returning('*');
  return { ...withoutSecret(row), secret };
}

const live = (db: Knex, scope: Scope) =>
  db<StoredWebhook>('webhooks').where({ account_id: scope.accountId, livemode: scope.livemode }).whereNull('deleted_at');

export async function listWebhooks(db: Knex, scope: Scope): Promise<WebhookRow[]> {
  return (await live(db, scope).orderBy('created_at', 'desc')).map(withoutSecret);
}

export async function findWebhook(db: Knex, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  const row = await live(db, scope).andWhere({ id }).first();
  return row && withoutSecret(row);
}

/** A configuration even after its deletion: its delivery log stays readable. */
export async function findWebhookWithDeleted(db: Knex, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  const row = await db<StoredWebhook>('webhooks').where({ account_id: scope.accountId, livemode: scope.livemode, id }).first();
  return row && withoutSecret(row);
}

/** Soft delete: pending deliveries see `deleted_at` and make no further attempts. */
export async function deleteWebhook(db: Knex, scope: Scope, id: string): Promise<boolean> {
  const n = await live(db, scope).andWhere({ id }).update({ deleted_at: new Date(), active: false });
  return n > 0;
}

/**
 * A new secret; the previous one keeps signing beside it for `expirePreviousInSeconds` (0: it
 * stops at once), so that receivers can move to the new one without rejecting a delivery.
 */
export async function rotateWebhookSecret(
  db: Knex,
  key: Buffer,
  scope: Scope,
  id: string,
  expirePreviousInSeconds: number,
): Promise<WebhookWithSecret | undefined> {
  const stored = await live(db, scope).andWhere({ id }).first();
  if (!stored) return undefined;
  const { secret: previous } = await reveal(db, stored, key);
  const secret = newWebhookSecret();
  const overlap = expirePreviousInSeconds > 0;
  const rows: StoredWebhook[] = await live(db, scope)
    .andWhere({ id })
    .update({
      secret: null,
      secret_sealed: sealWebhookSecret(secret, id, key),
      previous_secret_sealed: overlap ? sealWebhookSecret(previous, id, key) : null,
      previous_secret_expires_at: overlap ? new Date(Date.now() + expirePreviousInSeconds * 1000) : null,
    })
    .returning('*');
  const row = rows.at(0);
  return row && { ...withoutSecret(row), secret };
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  payment_id: string | null;
  event: string;
  body: string;
  status: 'pending' | 'succeeded' | 'failed' | 'skipped';
  attempts: number;
  created_at: Date;
  updated_at: Date;
}

export interface Envelope {
  event: PaymentEvent;
  payment_id: string;
  timestamp: string;
  /** The payment's version (1 for payment.created); 0 for payment.test, which belongs to no payment. */
  sequence: number;
  data: object;
}

/**
 * Record one delivery per subscribed, active configuration. The id is derived from the payment,
 * its version and the configuration, so a retried activity never records a delivery twice.
 */
export async function planDeliveries(
  db: Knex,
  scope: Scope,
  envelope: Envelope,
  version: number,
): Promise<{ id: string; url: string; webhookId: string }[]> {
  const hooks = await live(db, scope).andWhere({ active: true }).andWhere('events', '@>', [envelope.event]);
  if (hooks.length === 0) return [];
  const body = JSON.stringify(envelope);
  const rows = hooks.map((h) => ({
    id: `dlv_${createHash('sha256').update(`${envelope.payment_id}|${version}|${h.id}`).digest('hex').slice(0, 26)}`,
    webhook_id: h.id,
    payment_id: envelope.payment_id,
    event: envelope.event,
    body,
  }));
  await db('webhook_deliveries').insert(rows).onConflict('id').ignore();
  return rows.map((r, i) => ({ id: r.id, url: hooks[i].url, webhookId: hooks[i].id }));
}

/** A delivery's status, the attempts logged and when the last was made (ms), or null when there is no such delivery. */
export async function deliveryProgress(
  db: Knex,
  id: string,
): Promise<{ status: string; attempts: number; lastAttemptAt: number | null } | null> {
  const row = (await db('webhook_deliveries').where({ id }).first()) as { status: string } | undefined;
  if (!row) return null;
  const last = (await db('webhook_delivery_attempts').where({ delivery_id: id }).max('attempt as attempts').max('at as at').first()) as
    { attempts: number | null; at: Date | null } | undefined;
  return { status: row.status, attempts: last?.attempts ?? 0, lastAttemptAt: last?.at ? last.at.getTime() : null };
}

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

/** A delivery and its configuration, with the configuration's secret decrypted for signing. */
export async function loadDelivery(
  db: Knex,
  id: string,
  key: Buffer,
): Promise<{ delivery: DeliveryRow; webhook: WebhookWithSecret } | undefined> {
  const delivery = await db<DeliveryRow>('webhook_deliveries').where({ id }).first();
  if (!delivery) return undefined;
  const webhook = await db<StoredWebhook>('webhooks').where({ id: delivery.webhook_id }).first();
  if (!webhook) return undefined;
  const revealed = await reveal(db, webhook, key);
  const overlapping =
    webhook.previous_secret_sealed && webhook.previous_secret_expires_at && webhook.previous_secret_expires_at.getTime() > Date.now();
  return {
    delivery,
    webhook: overlapping ? { ...revealed, previousSecret: openWebhookSecret(webhook.previous_secret_sealed!, webhook.id, key) } : revealed,
  };
}

/** The service turns a configuration off (a 410 from its receiver); PATCH active: true turns it on. */
export async function disableWebhook(db: Knex, id: string, reason: string): Promise<void> {
  await db('webhooks').where({ id }).update({ active: false, disabled_reason: reason });
}

export async function setWebhookActive(db: Knex, scope: Scope, id: string, active: boolean): Promise<WebhookRow | undefined> {
  const rows: StoredWebhook[] = await live(db, scope)
    .andWhere({ id })
    .update({ active, disabled_reason: active ? null : 'disabled through the API' })
    .returning('*');
  const row = rows.at(0);
  return row && withoutSecret(row);
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
      db.raw('min(a.at) filter (where a.error is not null) as first_failure'),
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
          .andWhere('a.at', '>', lastSuccess)
          .min('a.at as at')
          .first()) as { at: Date | null } | undefined
      )?.at
    : firstFailure;
  return failingFrom != null && Date.now() - failingFrom.getTime() >= windowMs;
}

export interface AttemptRecord {
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first 1 KB of the receiver's answer. */
  excerpt?: string | null;
}

/** The custody trail's record of one attempt, in the attempt's own transaction. */
async function appendAttemptLeaf(
  trx: Knex.Transaction,
  deliveryId: string,
  a: AttemptRecord,
  status: DeliveryRow['status'],
): Promise<void> {
  const row = await trx('webhook_deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .where('d.id', deliveryId)
    .first('d.payment_id', 'd.event', 'd.webhook_id', 'w.account_id', 'w.livemode');
  if (!row) return;
  await appendLeaf(
    trx,
    webhookAttemptLeaf({
      deliveryId,
      webhookId: row.webhook_id,
      paymentId: row.payment_id,
      accountId: row.account_id,
      livemode: row.livemode,
      event: row.event,
      attempt: a.attempt,
      at: a.at,
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      outcome: status,
    }),
  );
}

export async function recordAttempt(db: Knex, deliveryId: string, a: AttemptRecord, status: DeliveryRow['status']): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_delivery_attempts')
      .insert({
        delivery_id: deliveryId,
        attempt: a.attempt,
        at: a.at,
        status_code: a.statusCode,
        duration_ms: a.durationMs,
        error: a.error,
        response_excerpt: a.excerpt ?? null,
      })
      .onConflict(['delivery_id', 'attempt'])
      .ignore();
    await trx('webhook_deliveries').where({ id: deliveryId }).update({ status, attempts: a.attempt, updated_at: new Date() });
    await appendAttemptLeaf(trx, deliveryId, a, status);
  });
}

export async function findDelivery(db: Knex, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  return db<DeliveryRow>('webhook_deliveries').where({ id, webhook_id: webhookId }).first();
}

/** Ready a delivery for a new series: pending again; answers the attempts already logged. */
export async function prepareResend(db: Knex, id: string): Promise<number> {
  const row = (await db('webhook_delivery_attempts').where({ delivery_id: id }).max('attempt as last').first()) as
    { last: number | null } | undefined;
  await db('webhook_deliveries').where({ id }).update({ status: 'pending', updated_at: new Date() });
  return row?.last ?? 0;
}

/**
 * Deliveries to recover: those that exhausted their attempts, and those still being retried after
 * a failed attempt (their next retry may be hours away).
 */
export async function failedDeliveriesSince(db: Knex, webhookId: string, since: Date): Promise<string[]> {
  return db('webhook_deliveries as d')
    .where({ 'd.webhook_id': webhookId })
    .andWhere('d.created_at', '>=', since)
    .andWhere((w) =>
      w
        .where('d.status', 'failed')
        .orWhere((p) =>
          p
            .where('d.status', 'pending')
            .whereExists(
              db('webhook_delivery_attempts as a').whereRaw(
                'a.delivery_id = d.id and (a.status_code is null or a.status_code not between 200 and 299)',
              ),
            ),
        ),
    )
    .orderBy('d.created_at')
    .pluck('d.id');
}

export async function markDelivery(db: Knex, deliveryId: string, status: DeliveryRow['status']): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId }).update({ status, updated_at: new Date() });
}

export interface DeliveryFilter extends PageRequest, CreatedRange {
  status?: DeliveryRow['status'];
  paymentId?: string;
}

/** How Temporal's retry policy spaces attempts: for a pending delivery's next attempt time. */
export interface RetrySchedule {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
}

/** A configuration's delivery log, newest first, each delivery with its attempts. */
export async function listDeliveries(db: Knex, webhookId: string, filter: DeliveryFilter, schedule: RetrySchedule) {
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
  return { data: await withAttempts(db, page.rows, schedule), hasMore: page.hasMore };
}

/** One delivery of a configuration, with its attempts. */
export async function getDelivery(db: Knex, webhookId: string, id: string, schedule: RetrySchedule) {
  const row = await findDelivery(db, webhookId, id);
  return row && (await withAttempts(db, [row], schedule))[0];
}

async function withAttempts(db: Knex, rows: DeliveryRow[], schedule: RetrySchedule) {
  const ids = rows.map((d) => d.id);
  const attempts = ids.length ? await db('webhook_delivery_attempts').whereIn('delivery_id', ids).orderBy(['delivery_id', 'attempt']) : [];
  return rows.map((d) => {
    const mine = attempts.filter((a) => a.delivery_id === d.id);
    const last = mine.at(-1);
    // Temporal's schedule: the n-th retry waits initial × backoff^(n-1), capped at the maximum.
    const nextAttemptAt =
      d.status === 'pending' && last && last.attempt < schedule.maximumAttempts
        ? new Date(
            (last.at as Date).getTime() +
              Math.min(schedule.initialIntervalMs * schedule.backoffCoefficient ** (last.attempt - 1), schedule.maximumIntervalMs),
          ).toISOString()
        : null;
    return {
      id: d.id,
      event: d.event,
      payment_id: d.payment_id,
      status: d.status,
      created_at: d.created_at.toISOString(),
      next_attempt_at: nextAttemptAt,
      attempts: mine.map((a) => ({
        attempt: a.attempt,
        at: (a.at as Date).toISOString(),
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
      })),
    };
  });
}
