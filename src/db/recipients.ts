/**
 * The recipient repository (docs/concepts.md, "Recipients"): rows per account and mode, their
 * changes with the deliveries each change's `recipient.updated` owes (recorded in the same
 * transaction), and whether an open payment names one.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { canonicalJson } from '../domain/canonicalJson';
import { type RecipientState, type Requirements, type Verification, payoutsEnabled } from '../domain/recipients';
import { TERMINAL_STATUSES } from '../domain/paymentTypes';
import type { Scope } from '../domain/tenancy';
import { recipientEnvelope } from '../views/recipientView';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from './pagination';

interface RecipientRow {
  id: string;
  account_id: string;
  livemode: boolean;
  email: string;
  name: string | null;
  country: string;
  type: RecipientState['type'];
  metadata: Record<string, string> | null;
  verification_status: Verification['status'];
  requirements: Requirements;
  disabled_reason: string | null;
  payouts_enabled: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
}

function fromRow(r: RecipientRow): RecipientState {
  return {
    id: r.id,
    accountId: r.account_id,
    livemode: r.livemode,
    email: r.email,
    name: r.name,
    country: r.country,
    type: r.type,
    metadata: r.metadata ?? {},
    verification: { status: r.verification_status, requirements: r.requirements, disabledReason: r.disabled_reason },
    payoutsEnabled: r.payouts_enabled,
    version: r.version,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

function toRow(r: RecipientState) {
  return {
    id: r.id,
    account_id: r.accountId,
    livemode: r.livemode,
    email: r.email,
    name: r.name,
    country: r.country,
    type: r.type,
    metadata: JSON.stringify(r.metadata),
    verification_status: r.verification.status,
    requirements: JSON.stringify(r.verification.requirements),
    disabled_reason: r.verification.disabledReason,
    payouts_enabled: r.payoutsEnabled,
    version: r.version,
    created_at: new Date(r.createdAt),
    updated_at: new Date(r.updatedAt),
  };
}

const scoped = (db: Knex | Knex.Transaction, scope: Scope) =>
  db('recipients').where({ account_id: scope.accountId, livemode: scope.livemode });

/** A new recipient; a retried create (same id) writes nothing twice. */
export async function insertRecipient(db: Knex, r: RecipientState): Promise<void> {
  await db('recipients').insert(toRow(r)).onConflict('id').ignore();
}

export async function findRecipient(db: Knex | Knex.Transaction, scope: Scope, id: string): Promise<RecipientState | undefined> {
  const row = (await scoped(db, scope).andWhere({ id }).first()) as RecipientRow | undefined;
  return row && fromRow(row);
}

/** Several recipients of one account and mode by id: those that exist. */
export async function findRecipients(db: Knex, scope: Scope, ids: string[]): Promise<RecipientState[]> {
  if (ids.length === 0) return [];
  const rows = (await scoped(db, scope).whereIn('id', ids)) as RecipientRow[];
  return rows.map(fromRow);
}

export interface RecipientFilter extends PageRequest, CreatedRange {}

export async function listRecipients(db: Knex, scope: Scope, filter: RecipientFilter) {
  const page = await pageOf<RecipientRow>(
    'recipients',
    () => scoped(db, scope),
    (q) => withinCreated(q, filter),
    filter,
  );
  return 'cursorNotFound' in page ? page : { rows: page.rows.map(fromRow), hasMore: page.hasMore };
}

/** A delivery id of a recipient's event: derived from the recipient, its version and the configuration, so a retry records it once. */
const deliveryId = (recipientId: string, version: number, webhookId: string) =>
  `dlv_${createHash('sha256').update(`${recipientId}|${version}|${webhookId}`).digest('hex').slice(0, 26)}`;

/** The deliveries a recipient's new version owes: one per active configuration of its account and mode that names the event. */
async function recordDeliveries(tx: Knex.Transaction, r: RecipientState): Promise<void> {
  const envelope = recipientEnvelope(r);
  const hooks = await tx<{ id: string }>('webhooks')
    .where('account_id', r.accountId)
    .andWhere('livemode', r.livemode)
    .andWhere('active', true)
    .whereNull('deleted_at')
    .whereRaw('events @> ARRAY[?]::text[]', [envelope.event])
    .orderBy(['created_at', 'id'])
    .select('id');
  if (hooks.length === 0) return;
  const body = JSON.stringify(envelope);
  await tx('webhook_deliveries')
    .insert(
      hooks.map((h) => ({ id: deliveryId(r.id, r.version, h.id), webhook_id: h.id, recipient_id: r.id, event: envelope.event, body })),
    )
    .onConflict('id')
    .ignore();
}

/**
 * Apply `change` to the recipient under its row's lock; when it changes anything, the new version is
 * written with its event's deliveries, and `after` runs in the same transaction (the ledger's move
 * of pending money when payouts become enabled). Undefined when there is no such recipient.
 */
export async function changeRecipient(
  db: Knex,
  scope: Scope,
  id: string,
  change: (r: RecipientState) => RecipientState,
  after?: (tx: Knex.Transaction, before: RecipientState, now: RecipientState) => Promise<void>,
): Promise<RecipientState | undefined> {
  return db.transaction(async (tx) => {
    const row = (await scoped(tx, scope).andWhere({ id }).forUpdate().first()) as RecipientRow | undefined;
    if (!row) return undefined;
    const before = fromRow(row);
    const changed = change(before);
    const next = { ...changed, payoutsEnabled: payoutsEnabled(changed.verification) };
    if (canonicalJson(recipientFields(next)) === canonicalJson(recipientFields(before))) return before;
    const now = { ...next, version: before.version + 1, updatedAt: new Date().toISOString() };
    await tx('recipients').where({ id }).update(toRow(now));
    await recordDeliveries(tx, now);
    await after?.(tx, before, now);
    return now;
  });
}

/** What a change may change: a write with all of it equal changes nothing. */
const recipientFields = (r: RecipientState) => [r.email, r.name, r.metadata, r.verification, r.payoutsEnabled];

/** Deliveries of the recipient's events whose series may not have started (none attempted yet, still pending). */
export async function unattemptedDeliveries(db: Knex, recipientId: string): Promise<string[]> {
  const rows = await db<{ id: string; recipient_id: string; status: string; attempts: number }>('webhook_deliveries')
    .where({ recipient_id: recipientId, status: 'pending', attempts: 0 })
    .orderBy(['created_at', 'id'])
    .select('id');
  return rows.map((r) => r.id);
}

/** Whether a payment not yet finished names the recipient (itself or one of its milestones). */
export async function openPaymentNames(db: Knex | Knex.Transaction, scope: Scope, recipientId: string): Promise<boolean> {
  const row = await db('payments')
    .where({ account_id: scope.accountId, livemode: scope.livemode })
    .whereNotIn('status', TERMINAL_STATUSES)
    .andWhere((q) => q.where('recipient_id', recipientId).orWhereRaw('milestones @> ?::jsonb', [JSON.stringify([{ recipientId }])]))
    .first('id');
  return row !== undefined;
}
