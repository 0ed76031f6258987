import type { Knex } from 'knex';
import { storedExponent } from '../domain/money';
import type { HistoryEntry, PaymentState, PaymentStatus } from '../domain/payment';
import type { Scope } from '../domain/tenancy';
import { recordEvent } from './events';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from './pagination';

interface PaymentRow {
  id: string;
  account_id: string;
  livemode: boolean;
  amount_minor: string;
  amount_exponent: number;
  currency: string;
  status: PaymentStatus;
  payer_email: string;
  recipient_email: string;
  description: string | null;
  metadata: Record<string, string> | null;
  deposit_deadline: Date;
  auto_release_after_seconds: number | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

function toRow(s: PaymentState): PaymentRow {
  return {
    id: s.id,
    account_id: s.accountId,
    livemode: s.livemode,
    amount_minor: s.amountMinor,
    amount_exponent: storedExponent(s),
    currency: s.currency,
    status: s.status,
    payer_email: s.payerEmail,
    recipient_email: s.recipientEmail,
    description: s.description,
    metadata: s.metadata,
    deposit_deadline: new Date(s.depositDeadline),
    auto_release_after_seconds: s.autoReleaseAfterSeconds,
    created_at: new Date(s.createdAt),
    updated_at: new Date(s.updatedAt),
    version: s.version,
  };
}

function fromRow(r: PaymentRow): PaymentState {
  return {
    id: r.id,
    accountId: r.account_id,
    livemode: r.livemode,
    amountMinor: r.amount_minor,
    amountExponent: r.amount_exponent,
    currency: r.currency,
    status: r.status,
    payerEmail: r.payer_email,
    recipientEmail: r.recipient_email,
    description: r.description,
    metadata: r.metadata ?? {},
    depositDeadline: r.deposit_deadline.toISOString(),
    autoReleaseAfterSeconds: r.auto_release_after_seconds,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    version: r.version,
  };
}

/**
 * Project a payment and one history entry into the read model. Idempotent and monotonic: the row
 * only moves to a higher version, so a late or repeated write never moves it backwards.
 */
export async function projectPayment(db: Knex | Knex.Transaction, state: PaymentState, entry: HistoryEntry): Promise<void> {
  const row = { ...toRow(state), metadata: JSON.stringify(state.metadata) };
  const write = async (trx: Knex.Transaction) => {
    await trx('payments')
      .insert(row)
      .onConflict('id')
      .merge(['status', 'updated_at', 'version'])
      // Only durable states are written (the workflow after its task, the API after Temporal's
      // answer), so the same version is the same state: rewriting it is harmless, and a row never
      // keeps a status the workflow did not make durable at that version.
      .where('payments.version', '<=', state.version);
    await trx('payment_events')
      .insert({
        payment_id: state.id,
        seq: entry.seq,
        action: entry.action,
        from_status: entry.from,
        to_status: entry.to,
        event: entry.event,
        actor: entry.actor,
        reason: entry.reason,
        at: new Date(entry.at),
      })
      .onConflict(['payment_id', 'seq'])
      .ignore();
    await recordEvent(trx, state, entry);
  };
  // Inside the caller's transaction when it has one.
  await (db.isTransaction ? write(db as Knex.Transaction) : db.transaction(write));
}

export async function findPayment(db: Knex, scope: Scope, id: string): Promise<PaymentState | undefined> {
  const row = await db<PaymentRow>('payments').where({ id, account_id: scope.accountId, livemode: scope.livemode }).first();
  return row ? fromRow(row) : undefined;
}

export interface ListFilter extends PageRequest, CreatedRange {
  status?: PaymentStatus;
}

/** Newest first; cursors are payment ids of this account and mode. */
export async function listPayments(
  db: Knex,
  scope: Scope,
  filter: ListFilter,
): Promise<{ data: PaymentState[]; hasMore: boolean } | { cursorNotFound: string }> {
  const page = await pageOf<PaymentRow>(
    'payments',
    () => db('payments').where({ account_id: scope.accountId, livemode: scope.livemode }),
    (q) => withinCreated(filter.status ? q.andWhere('status', filter.status) : q, filter),
    filter,
  );
  return 'cursorNotFound' in page ? page : { data: page.rows.map(fromRow), hasMore: page.hasMore };
}

export async function listPaymentEvents(db: Knex, paymentId: string): Promise<HistoryEntry[]> {
  const rows = await db('payment_events').where({ payment_id: paymentId }).orderBy('seq');
  return rows.map((r) => ({
    seq: r.seq,
    action: r.action,
    from: r.from_status,
    to: r.to_status,
    event: r.event,
    actor: r.actor,
    reason: r.reason,
    at: (r.at as Date).toISOString(),
  }));
}
