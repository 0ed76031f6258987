/** The payment read model: its row (written by src/payments/projection.repository.ts), reads and lists, and the payment's history. */
import type { Knex } from 'knex';
import type { DisputeState, HistoryEntry, MilestoneState, PaymentStatus } from './paymentTypes.rules';
import type { PaymentRecord } from './paymentRecord.rules';
import { type MilestonePersonal, personalOf, withPersonal, withoutTexts } from './personalData.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { fundingReferenceOf } from './fundingReference.rules';
import { moneyJson, withBigintMoney } from '../ledger/moneyFields.rules';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from '../platform/database/pagination';

/** Every field of the payment, once: the row's columns are these, in snake_case. */
const FIELDS = {
  id: true,
  accountId: true,
  livemode: true,
  amountMinor: true,
  amountExponent: true,
  currency: true,
  status: true,
  payerEmail: true,
  recipientEmail: true,
  description: true,
  metadata: true,
  depositDeadline: true,
  autoReleaseAfterSeconds: true,
  createdAt: true,
  updatedAt: true,
  version: true,
  platformFeeMinor: true,
  heldMinor: true,
  releasedMinor: true,
  refundedMinor: true,
  feeCollectedMinor: true,
  milestones: true,
  staged: true,
  disputes: true,
  recipientId: true,
  funding: true,
  amountReceivedMinor: true,
  custody: true,
} satisfies Record<keyof PaymentRecord, true>;
const DATE_FIELDS = ['depositDeadline', 'createdAt', 'updatedAt'] as const satisfies readonly (keyof PaymentRecord)[];
type DateField = (typeof DATE_FIELDS)[number];
const isDateField = (field: string): field is DateField => (DATE_FIELDS as readonly string[]).includes(field);

type Column<K extends string> = K extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Column<T>}` : K;
const column = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The read model's row, derived from `PaymentRecord`: timestamps as Date, the exponent always stored;
 * a milestone in `milestones` as the workflow holds it, its personal fields in `milestone_personal`.
 */
type PaymentRow = {
  [K in keyof PaymentRecord as Column<K>]-?: K extends DateField
    ? Date
    : K extends 'metadata'
      ? PaymentRecord[K] | null
      : K extends 'milestones'
        ? MilestoneState[]
        : K extends 'disputes'
          ? PaymentRecord[K] | null
          : Exclude<PaymentRecord[K], undefined>;
} & { milestone_personal: MilestonePersonal[] | null };

/** The row's columns, in `FIELDS` order and the milestones' personal fields; and those a later version of the payment changes. */
export const PAYMENT_COLUMNS = [...Object.keys(FIELDS).map(column), 'milestone_personal', 'funding_reference'];
export const PAYMENT_PROJECTED_COLUMNS = [
  'milestones',
  'status',
  'updated_at',
  'version',
  'held_minor',
  'released_minor',
  'refunded_minor',
  'fee_collected_minor',
  'disputes',
  'amount_received_minor',
] as const satisfies readonly (keyof PaymentRow)[];

/** The row as bound values: JSON columns as text; a milestone's personal fields apart from the rest (docs/architecture.md, "Personal data"). */
export function toRow(s: PaymentRecord): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field of Object.keys(FIELDS) as (keyof PaymentRecord)[]) {
    row[column(field)] = isDateField(field) ? new Date(s[field]) : s[field];
  }
  row.metadata = JSON.stringify(s.metadata);
  row.recipient_id = s.recipientId ?? null;
  row.funding = s.funding ?? 'api';
  row.amount_received_minor = s.amountReceivedMinor ?? 0n;
  row.custody = s.custody ? JSON.stringify(s.custody) : null;
  // The creditor reference a transfer is matched by (docs/bank.md): the id's, unique.
  row.funding_reference = fundingReferenceOf(s.id);
  // JSON columns keep money as decimal text (src/ledger/moneyFields.rules.ts).
  row.milestones = moneyJson(s.milestones.map(({ reference: _r, description: _d, recipientEmail: _e, ...kept }) => kept));
  // A dispute's texts are kept apart, under their keyed hashes (src/payments/disputeTexts.repository.ts).
  row.disputes = s.disputes ? moneyJson(s.disputes.map(withoutTexts)) : null;
  const personal = personalOf(s).milestones;
  row.milestone_personal = personal ? JSON.stringify(personal) : null;
  return row;
}

function fromRow(r: PaymentRow): PaymentRecord {
  const row = r as unknown as Record<string, unknown>;
  const state: Record<string, unknown> = {};
  for (const field of Object.keys(FIELDS)) {
    const value = row[column(field)];
    // A bigint column arrives as decimal text (src/platform/database/knex.ts): money becomes bigint here, once.
    state[field] = isDateField(field) ? (value as Date).toISOString() : field.endsWith('Minor') ? BigInt(value as string) : value;
  }
  state.metadata ??= {};
  // The JSON columns' money, as decimal text there.
  const disputes = state.disputes === null ? {} : { disputes: withBigintMoney(state.disputes as DisputeState[]) };
  const { milestones: _m, disputes: _d, ...record } = state as unknown as PaymentRecord;
  const milestones = withBigintMoney(r.milestones);
  return withPersonal({ ...record, ...disputes, milestones }, { ...personalOf(record), milestones: r.milestone_personal });
}

export async function findPayment(db: Knex, scope: Scope, id: string): Promise<PaymentRecord | undefined> {
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
): Promise<{ data: PaymentRecord[]; hasMore: boolean } | { cursorNotFound: string }> {
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
    ...(r.milestone_id ? { milestoneId: r.milestone_id } : {}),
  }));
}

/** The payment whose funding reference a bank's credit names (docs/bank.md), in a mode, whatever its account: for the bank's matching. */
export async function findPaymentByFundingReference(db: Knex, reference: string, livemode: boolean): Promise<PaymentRecord | undefined> {
  const row = (await db('payments').where({ funding_reference: reference, livemode }).first()) as PaymentRow | undefined;
  return row ? fromRow(row) : undefined;
}

/** A payment by id alone, across accounts and modes: for operator tools (`npm run repair`), never for a client. */
export async function findPaymentById(db: Knex, id: string): Promise<PaymentRecord | undefined> {
  const row = await db<PaymentRow>('payments').where({ id }).first();
  return row ? fromRow(row) : undefined;
}

/** Ids of every payment (of one account, if given) whose status in the read model is not terminal, oldest first. */
export async function listOpenPaymentIds(db: Knex, terminal: readonly PaymentStatus[], accountId?: string): Promise<string[]> {
  const q = db<{ id: string; status: string; account_id: string }>('payments').whereNotIn('status', terminal);
  if (accountId) q.andWhere('account_id', accountId);
  const rows = await q.orderBy('created_at').select('id');
  return rows.map((r) => r.id);
}
