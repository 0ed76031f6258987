/**
 * Credits booked at the custody account (docs/bank.md, "Funding by bank transfer", "Unapplied
 * credits"): one row per entry of the bank, taken once by its entry key whichever file carries it, with
 * the ledger entries their money makes (through the one writer, src/ledger/transfers.repository.ts).
 * The debtor's name and IBAN are personal data: kept here only, never in Temporal, shown as last4.
 */
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { BANK_CUSTODY, bankCreditAddress, escrowAddress } from '../ledger/ledger.rules';
import { type BankBooking, postTransfers } from '../ledger/transfers.repository';
import { type BankCreditStatus, OPERATOR_ACCOUNT, last4 } from './bankCredit.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { type PageRequest, pageOf } from '../platform/database/pagination';

export interface BankCreditRow {
  id: string;
  account_id: string | null;
  livemode: boolean;
  amount_minor: bigint;
  currency: string;
  exponent: number;
  reference: string | null;
  status: BankCreditStatus;
  payment_id: string | null;
  bank_file_id: string | null;
  booked_on: string;
  bank_entry_ref: string | null;
  entry_key: string;
  debtor_last4: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** A credit as the bank booked it, before it is matched. */
export interface NewBankCredit {
  entryKey: string;
  livemode: boolean;
  amountMinor: bigint;
  currency: string;
  exponent: number;
  reference: string | null;
  bookedOn: string;
  bankEntryRef: string | null;
  bankFileId: string | null;
  /** Personal data: kept in this table only. */
  debtor: { name: string | null; iban: string | null } | null;
}

const COLUMNS = [
  'id',
  'account_id',
  'livemode',
  'amount_minor',
  'currency',
  'exponent',
  'reference',
  'status',
  'payment_id',
  'bank_file_id',
  'booked_on',
  'bank_entry_ref',
  'entry_key',
  'debtor_last4',
  'version',
  'created_at',
  'updated_at',
];

function fromRow(r: Record<string, unknown>): BankCreditRow {
  const booked = r.booked_on as Date | string;
  return {
    ...(r as unknown as BankCreditRow),
    amount_minor: BigInt(r.amount_minor as string),
    booked_on: typeof booked === 'string' ? booked.slice(0, 10) : isoDate(booked),
  };
}

/** A `date` column as PostgreSQL holds it (the driver makes it a local midnight). */
const isoDate = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

export async function findCreditByEntryKey(db: Knex | Knex.Transaction, entryKey: string): Promise<BankCreditRow | undefined> {
  const row = await db('bank_credits').where({ entry_key: entryKey }).first(COLUMNS);
  return row ? fromRow(row) : undefined;
}

export async function findCredit(db: Knex | Knex.Transaction, id: string): Promise<BankCreditRow | undefined> {
  const row = await db('bank_credits').where({ id }).first(COLUMNS);
  return row ? fromRow(row) : undefined;
}

/**
 * Claim the entry once: the row, with its owner (`accountId`, null for the operator) and the payment it
 * names; the existing row when the same entry (the same key) was claimed before.
 */
export async function claimCredit(
  db: Knex | Knex.Transaction,
  c: NewBankCredit,
  owner: { accountId: string | null; paymentId: string | null; status: BankCreditStatus },
): Promise<{ row: BankCreditRow; claimed: boolean }> {
  const inserted = await db('bank_credits')
    .insert({
      id: `bc_${ulid()}`,
      account_id: owner.accountId,
      livemode: c.livemode,
      amount_minor: c.amountMinor.toString(),
      currency: c.currency,
      exponent: c.exponent,
      reference: c.reference,
      status: owner.status,
      payment_id: owner.paymentId,
      bank_file_id: c.bankFileId,
      booked_on: c.bookedOn,
      bank_entry_ref: c.bankEntryRef,
      entry_key: c.entryKey,
      debtor_name: c.debtor?.name ?? null,
      debtor_iban: c.debtor?.iban ?? null,
      debtor_last4: last4(c.debtor?.iban),
    })
    .onConflict('entry_key')
    .ignore()
    .returning(COLUMNS);
  if (inserted.length > 0) return { row: fromRow(inserted[0]), claimed: true };
  return { row: (await findCreditByEntryKey(db, c.entryKey))!, claimed: false };
}

const bookingOf = (row: BankCreditRow): BankBooking => ({
  bookedOn: row.booked_on,
  reference: row.reference,
  entryRef: row.bank_entry_ref,
});

/** The ledger's owner of a credit's entries: its tenant's account, or the operator's. */
const ledgerOwner = (row: BankCreditRow) => ({
  accountId: row.account_id ?? OPERATOR_ACCOUNT,
  livemode: row.livemode,
  currency: row.currency,
  exponent: row.exponent,
});

/** An unapplied credit's money: from the custody account at the bank to the credit's own account (`bank_credit_received`). */
export async function postCreditReceived(db: Knex, row: BankCreditRow, at: Date): Promise<void> {
  await postTransfers(db, [
    {
      key: `${row.id}:bank_credit_received`,
      code: 'bank_credit_received',
      paymentId: null,
      milestoneId: null,
      recipientId: null,
      version: 1,
      ...ledgerOwner(row),
      at,
      transfers: [{ debit: BANK_CUSTODY, credit: bankCreditAddress(row.id), amount: row.amount_minor }],
      bank: bookingOf(row),
    },
  ]);
}

/**
 * A platform's settlement of an `api` payment seen at the bank (docs/bank.md): the deposit it reported
 * is now booked, `bank:custody → payer_deposits` (`bank_settlement`).
 */
export async function postSettlement(db: Knex, row: BankCreditRow, paymentId: string, at: Date): Promise<void> {
  await postTransfers(db, [
    {
      key: `${row.id}:bank_settlement`,
      code: 'bank_settlement',
      paymentId: null,
      milestoneId: null,
      recipientId: null,
      version: 1,
      ...ledgerOwner(row),
      at,
      transfers: [{ debit: BANK_CUSTODY, credit: 'payer_deposits', amount: row.amount_minor }],
      bank: { ...bookingOf(row), reference: row.reference ?? paymentId },
    },
  ]);
}

/** An unapplied credit applied to a payment: `bank_credit:bc_… → escrow:pay_…` (`bank_credit_applied`), in `tx`. */
export async function postCreditApplied(
  tx: Knex.Transaction,
  row: BankCreditRow,
  payment: { id: string; version: number },
  at: Date,
): Promise<void> {
  await postTransfers(tx, [
    {
      key: `${row.id}:bank_credit_applied`,
      code: 'bank_credit_applied',
      paymentId: null,
      milestoneId: null,
      recipientId: null,
      version: payment.version,
      ...ledgerOwner(row),
      at,
      transfers: [{ debit: bankCreditAddress(row.id), credit: escrowAddress(payment.id), amount: row.amount_minor }],
    },
  ]);
}

/** Move a credit on (`unapplied` → `applied` or `returned`) only from the status it had: false when another got there first. */
export async function moveCredit(
  db: Knex | Knex.Transaction,
  id: string,
  from: BankCreditStatus,
  to: BankCreditStatus,
  paymentId?: string,
): Promise<BankCreditRow | undefined> {
  const rows = await db('bank_credits')
    .where({ id, status: from })
    .update({
      status: to,
      ...(paymentId ? { payment_id: paymentId } : {}),
      version: db.raw('version + 1'),
      updated_at: db.fn.now(),
    })
    .returning(COLUMNS);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

export interface CreditFilter extends PageRequest {
  status?: BankCreditStatus;
}

/** A tenant's credits of a mode, newest first. */
export async function listCredits(db: Knex, scope: Scope, filter: CreditFilter) {
  const page = await pageOf<BankCreditRow & { created_at: Date; id: string }>(
    'bank_credits',
    () => db('bank_credits').where({ account_id: scope.accountId, livemode: scope.livemode }),
    (q) => (filter.status ? q.andWhere('status', filter.status) : q).select(COLUMNS),
    filter,
  );
  return 'cursorNotFound' in page
    ? page
    : { rows: page.rows.map((r) => fromRow(r as unknown as Record<string, unknown>)), hasMore: page.hasMore };
}

/** The operator's credits (those that name no payment), oldest first. */
export async function listOperatorCredits(db: Knex): Promise<BankCreditRow[]> {
  const rows = await db('bank_credits').whereNull('account_id').orderBy('id').select(COLUMNS);
  return rows.map(fromRow);
}

/**
 * The payments of `ids` whose funding is booked at the bank (docs/bank.md, "Live availability"): the
 * credits applied to each, in its currency, add up to its amount. A `bank_transfer` payment's are the
 * credits it took (an overpayment's row keeps what it took, its excess is unapplied); an `api`
 * payment's, the platform's settlement transfers carrying its reference. A part is not enough.
 */
export async function fundingBookedOf(db: Knex | Knex.Transaction, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: { id: string }[] = await db('payments as p')
    .join('bank_credits as c', function () {
      this.on('c.payment_id', '=', 'p.id').andOn('c.currency', '=', 'p.currency');
    })
    .whereIn('p.id', ids)
    .andWhere('c.status', 'applied')
    .groupBy('p.id', 'p.amount_minor')
    .havingRaw('sum(c.amount_minor) >= p.amount_minor')
    .select('p.id');
  return new Set(rows.map((r) => r.id));
}

/** An entry a payment took only part of: the row keeps what it took; the rest is an unapplied credit of its own. */
export async function setCreditAmount(db: Knex, id: string, amountMinor: bigint): Promise<void> {
  await db('bank_credits').where({ id }).update({ amount_minor: amountMinor.toString() });
}
