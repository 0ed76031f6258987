/**
 * The webhook configuration repository: create, read, rotate, turn on and off, delete; secrets are
 * stored sealed (src/webhooks/secretBox.ts) and opened only for signing or to show once.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { Scope } from '../tenants/tenancy.rules';
import { openWebhookSecret, sealWebhookSecret } from './secretBox';

/** A webhook configuration as the service uses it: the stored row without its secrets. */
export interface WebhookConfiguration {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  events: string[];
  active: boolean;
  /** Why it is off: the service's reason (a 410, the failure window) or "disabled through the API"; null when on. */
  disabled_reason: string | null;
  created_at: Date;
  deleted_at: Date | null;
}
export type WebhookWithSecret = WebhookConfiguration & {
  secret: string;
  /** During a rotation's overlap: the previous secret, which still signs beside the new one. */
  previousSecret?: string;
};

/**
 * The table's row: the secret is stored sealed (AES-256-GCM, src/webhooks/secretBox.ts) in
 * `secret_sealed`. `secret` holds a clear secret only for rows written before encryption, until
 * `sealClearSecret` seals it (the first delivery after the upgrade does).
 */
export interface StoredWebhook extends WebhookConfiguration {
  secret: string | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

const COLUMNS = ['id', 'account_id', 'livemode', 'url', 'events', 'active', 'disabled_reason', 'created_at', 'deleted_at'] as const;
const withoutSecret = (row: StoredWebhook): WebhookConfiguration =>
  Object.fromEntries(COLUMNS.map((c) => [c, row[c]])) as unknown as WebhookConfiguration;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks: the part after the prefix is the base64 key). */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A stored row's current secret in clear: opened, or the clear one of a row from before encryption. No write. */
function reveal(row: StoredWebhook, key: Buffer): string {
  if (row.secret_sealed) return openWebhookSecret(row.secret_sealed, row.id, key);
  if (row.secret === null) throw new Error(`webhook ${row.id} has no secret`);
  return row.secret;
}

/** Seal a clear secret left from before encryption (a no-op once another process has). */
async function sealClearSecret(db: Knex, row: StoredWebhook, key: Buffer): Promise<void> {
  if (row.secret_sealed || row.secret === null) return;
  await db('webhooks')
    .where({ id: row.id, secret: row.secret })
    .update({ secret_sealed: sealWebhookSecret(row.secret, row.id, key), secret: null });
}

/** Configurations not deleted, of one account and mode (deleted ones keep their delivery log). */
const notDeleted = (db: Knex, scope: Scope) =>
  db<StoredWebhook>('webhooks').where({ account_id: scope.accountId, livemode: scope.livemode }).whereNull('deleted_at');

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

export async function countWebhooks(db: Knex, scope: Scope): Promise<number> {
  const row = await notDeleted(db, scope).count<{ n: string }>('* as n').first();
  return Number(row?.n ?? 0);
}

export async function listWebhooks(db: Knex, scope: Scope): Promise<WebhookConfiguration[]> {
  return (await notDeleted(db, scope).orderBy('created_at', 'desc')).map(withoutSecret);
}

export async function findWebhook(db: Knex, scope: Scope, id: string): Promise<WebhookConfiguration | undefined> {
  const row = await notDeleted(db, scope).andWhere({ id }).first();
  return row && withoutSecret(row);
}

/** A configuration even after its deletion: its delivery log stays readable. */
export async function findWebhookWithDeleted(db: Knex, scope: Scope, id: string): Promise<WebhookConfiguration | undefined> {
  const row = await db<StoredWebhook>('webhooks').where({ account_id: scope.accountId, livemode: scope.livemode, id }).first();
  return row && withoutSecret(row);
}

/**
 * A configuration (deleted or not) with its secrets for signing: the previous one too during a
 * rotation's overlap. A clear secret left from before encryption is sealed first.
 */
export async function webhookForSigning(db: Knex, id: string, key: Buffer): Promise<WebhookWithSecret | undefined> {
  const row = await db<StoredWebhook>('webhooks').where({ id }).first();
  return row && openForSigning(db, row, key);
}

/**
 * A stored row (as read by the caller) with its secrets opened for signing: the previous one too
 * during a rotation's overlap. A clear secret left from before encryption is sealed first.
 */
export async function openForSigning(db: Knex, row: StoredWebhook, key: Buffer): Promise<WebhookWithSecret> {
  await sealClearSecret(db, row, key);
  const signing = { ...withoutSecret(row), secret: reveal(row, key) };
  const overlapping = row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > Date.now();
  return overlapping ? { ...signing, previousSecret: openWebhookSecret(row.previous_secret_sealed!, row.id, key) } : signing;
}

/** Soft delete: pending deliveries see `deleted_at` and make no further attempts. */
export async function deleteWebhook(db: Knex, scope: Scope, id: string): Promise<boolean> {
  const n = await notDeleted(db, scope).andWhere({ id }).update({ deleted_at: new Date(), active: false });
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
  const stored = await notDeleted(db, scope).andWhere({ id }).first();
  if (!stored) return undefined;
  const previous = reveal(stored, key);
  const secret = newWebhookSecret();
  const overlap = expirePreviousInSeconds > 0;
  // Clears a secret left in clear from before encryption, too.
  const rows: StoredWebhook[] = await notDeleted(db, scope)
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

/** The service turns a configuration off (a 410 from its receiver); PATCH active: true turns it on. */
export async function disableWebhook(db: Knex, id: string, reason: string): Promise<void> {
  await db('webhooks').where({ id }).update({ active: false, disabled_reason: reason });
}

export async function setWebhookActive(db: Knex, scope: Scope, id: string, active: boolean): Promise<WebhookConfiguration | undefined> {
  const rows: StoredWebhook[] = await notDeleted(db, scope)
    .andWhere({ id })
    .update({ active, disabled_reason: active ? null : 'disabled through the API' })
    .returning('*');
  const row = rows.at(0);
  return row && withoutSecret(row);
}

/** A count refused the send: its transaction is rolled back, so the other count is not taken either. */
class SendRefused extends Error {
  constructor(readonly by: 'webhook' | 'account') {
    super(`test send refused by the ${by} count`);
  }
}

/**
 * Count one test send against the configuration's clock hour (UTC) and against its account's and
 * mode's (docs/security.md, "Quotas"), unless either was sent its limit in it already: one statement
 * each, in one transaction, so concurrent sends from any API process cannot pass a limit together and
 * a refused send counts nowhere. The account's count outlives its configurations: deleting one and
 * configuring another gives no fresh budget. Answers which count refused, or undefined when counted.
 */
export async function countTestSend(
  db: Knex,
  scope: Scope,
  webhookId: string,
  limits: { perWebhook: number; perAccount: number },
): Promise<'webhook' | 'account' | undefined> {
  try {
    await db.transaction(async (tx) => {
      const webhook = await tx.raw<{ rows: unknown[] }>(
        `INSERT INTO webhook_test_sends (webhook_id, hour, sent) VALUES (?, date_trunc('hour', now()), 1)
         ON CONFLICT (webhook_id) DO UPDATE
           SET sent = CASE WHEN webhook_test_sends.hour = excluded.hour THEN webhook_test_sends.sent + 1 ELSE 1 END, hour = excluded.hour
           WHERE webhook_test_sends.hour <> excluded.hour OR webhook_test_sends.sent < ?
         RETURNING sent`,
        [webhookId, limits.perWebhook],
      );
      if (webhook.rows.length === 0) throw new SendRefused('webhook');
      const account = await tx.raw<{ rows: unknown[] }>(
        `INSERT INTO account_test_sends (account_id, livemode, hour, sent) VALUES (?, ?, date_trunc('hour', now()), 1)
         ON CONFLICT (account_id, livemode) DO UPDATE
           SET sent = CASE WHEN account_test_sends.hour = excluded.hour THEN account_test_sends.sent + 1 ELSE 1 END, hour = excluded.hour
           WHERE account_test_sends.hour <> excluded.hour OR account_test_sends.sent < ?
         RETURNING sent`,
        [scope.accountId, scope.livemode, limits.perAccount],
      );
      if (account.rows.length === 0) throw new SendRefused('account');
    });
    return undefined;
  } catch (err) {
    if (err instanceof SendRefused) return err.by;
    throw err;
  }
}

/**
 * Of these configurations, disable (`disabled_reason: "backlog"`) each with more than `limit`
 * deliveries not yet ended, and answer their ids. Counts stop at limit + 1, on the pending deliveries'
 * partial index, so a configuration without a backlog costs a few index entries.
 */
export async function disableBacklogged(db: Knex, webhookIds: string[], limit: number): Promise<string[]> {
  const disabled: string[] = [];
  for (const id of new Set(webhookIds)) {
    const { rows } = await db.raw<{ rows: { n: string }[] }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' LIMIT ?) pending`,
      [id, limit + 1],
    );
    if (Number(rows[0].n) <= limit) continue;
    await db('webhooks').where({ id, active: true }).update({ active: false, disabled_reason: BACKLOG });
    disabled.push(id);
  }
  return disabled;
}

/** The reason a configuration disabled for its backlog shows (docs/webhooks.md). */
export const BACKLOG = 'backlog';
