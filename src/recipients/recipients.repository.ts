/**
 * The recipient repository (docs/concepts.md, "Recipients"): rows per account and mode, their
 * changes with the deliveries each change's `recipient.updated` owes (recorded in the same
 * transaction), and whether an open payment names one.
 */
import type { Knex } from 'knex';
import { eraseBankAccounts } from '../payouts/bankAccounts.repository';
import { canonicalJson } from '../audit/canonicalJson.rules';
import { type RecipientState, type Requirements, type Verification, payoutsEnabled, redactedRecipient } from './recipients.rules';
import { REDACTED } from '../payments/personalData.rules';
import { RECIPIENT_BALANCES, recipientAddress } from '../ledger/ledger.rules';
import { TERMINAL_STATUSES } from '../payments/paymentTypes.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { recipientEnvelope } from './recipient.view';
import { recordEvent } from '../webhooks/deliveryPlan.repository';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from '../platform/database/pagination';

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
  redacted_at?: Date | null;
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
    redactedAt: r.redacted_at ? r.redacted_at.toISOString() : null,
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

/** A recipient by id alone, its row locked (a worker's step: src/recipients/recipient.activities.ts). */
export async function lockRecipient(tx: Knex.Transaction, id: string): Promise<RecipientState | undefined> {
  const row = (await tx('recipients').where({ id }).forUpdate().first()) as RecipientRow | undefined;
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

/** A recipient's new version's event and the deliveries it owes (one function for every object's, src/webhooks/deliveryPlan.repository.ts). */
async function recordRecipientDeliveries(tx: Knex.Transaction, r: RecipientState): Promise<void> {
  const scope = { accountId: r.accountId, livemode: r.livemode };
  await recordEvent(tx, { scope, objectId: r.id, owner: { recipient_id: r.id }, envelope: recipientEnvelope(r) });
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
    await recordRecipientDeliveries(tx, now);
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

/** A JSON text holding the recipient (at its top or under `data`) with it erased; other texts unchanged. */
function redactedJson(text: string, erased: RecipientState): string {
  const value = JSON.parse(text) as Record<string, unknown> | null;
  const erase = (v: Record<string, unknown>) => ({ ...v, email: erased.email, name: erased.name, metadata: erased.metadata });
  if (value?.object === 'recipient' && value.id === erased.id) return JSON.stringify(erase(value));
  const data = value?.data as Record<string, unknown> | undefined;
  if (data?.object === 'recipient' && data.id === erased.id) return JSON.stringify({ ...value, data: erase(data) });
  return text;
}

/**
 * Erase a recipient's personal data everywhere the service keeps it (docs/operations.md), in one
 * transaction under its row's lock: the row, its bank accounts (src/payouts/bankAccounts.repository.ts), its events,
 * their delivery bodies and receivers' answers, stored idempotent answers. `refuse` runs first, under the lock, and may throw. Idempotent.
 */
export async function redactRecipient(
  db: Knex,
  scope: Scope,
  id: string,
  refuse: (tx: Knex.Transaction) => Promise<void>,
): Promise<RecipientState | undefined> {
  return db.transaction(async (tx) => {
    const row = (await scoped(tx, scope).andWhere({ id }).forUpdate().first()) as RecipientRow | undefined;
    if (!row) return undefined;
    await refuse(tx);
    const erased = redactedRecipient(fromRow(row), REDACTED);
    await eraseBankAccounts(tx, scope, id);
    await tx('recipients')
      .where({ id })
      .update({
        email: erased.email,
        name: erased.name,
        metadata: JSON.stringify(erased.metadata),
        redacted_at: row.redacted_at ?? new Date(),
      });
    const deliveries = await tx<{ id: string; body: string; recipient_id: string }>('webhook_deliveries')
      .where('recipient_id', id)
      .select('id', 'body');
    for (const d of deliveries)
      await tx('webhook_deliveries')
        .where('id', d.id)
        .update({ body: redactedJson(d.body, erased) });
    // Its events in the outbox (GET /api/v1/events) show the recipient as it was: erased too.
    const events = await tx<{ id: string; data: unknown; recipient_id: string }>('events').where('recipient_id', id).select('id', 'data');
    for (const e of events)
      await tx('events')
        .where('id', e.id)
        .update({ data: redactedJson(JSON.stringify(e.data), erased) });
    // A receiver's answer may echo what it was sent.
    await tx('webhook_delivery_attempts')
      .whereIn(
        'delivery_id',
        deliveries.map((d) => d.id),
      )
      .whereNotNull('response_excerpt')
      .update({ response_excerpt: REDACTED });
    const answers = await tx<{ key: string; response_body: string; account_id: string; livemode: boolean }>('idempotency_keys')
      .where('account_id', scope.accountId)
      .andWhere('livemode', scope.livemode)
      .andWhere('response_body', 'like', `%${JSON.stringify(id)}%`)
      .select('key', 'response_body');
    for (const a of answers) {
      const body = redactedJson(a.response_body, erased);
      if (body !== a.response_body) {
        await tx('idempotency_keys')
          .where({ account_id: scope.accountId, livemode: scope.livemode, key: a.key })
          .update({ response_body: body });
      }
    }
    return erased;
  });
}

/**
 * The latest paid payout of the recipient still inside its return window (`windowMs` after it was
 * paid: a paid row's last change), and when that window closes; undefined when none is.
 */
export async function openReturnWindow(
  db: Knex | Knex.Transaction,
  recipientId: string,
  windowMs: number,
  now = new Date(),
): Promise<{ payoutId: string; closesAt: Date } | undefined> {
  const row: { id: string; updated_at: Date } | undefined = await db('payouts')
    .where({ recipient_id: recipientId, status: 'paid' })
    .andWhere('updated_at', '>', new Date(now.getTime() - windowMs))
    .orderBy([
      { column: 'updated_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('id', 'updated_at');
  return row && { payoutId: row.id, closesAt: new Date(row.updated_at.getTime() + windowMs) };
}

/** Whether anything is still the recipient's to be paid: pending, available or in transit, in any currency. */
export async function holdsMoney(db: Knex | Knex.Transaction, recipientId: string): Promise<boolean> {
  const open = RECIPIENT_BALANCES.filter((b) => b !== 'paid_out').map((b) => recipientAddress(recipientId, b));
  const row = await db<{ address: string; balance_minor: string }>('ledger_account_balances')
    .whereIn('address', open)
    .andWhere('balance_minor', '>', 0)
    .first('address');
  return row !== undefined;
}
