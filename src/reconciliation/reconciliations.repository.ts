/**
 * The custody account's reconciliations (docs/reconciliation.md), one row per statement message id:
 * written by upsert, so a statement reconciled twice (a retried activity, a worker killed half-way,
 * `npm run reconcile -- take` beside the inbox) leaves one result, its id kept.
 */
import type { Knex } from 'knex';
import type { BankEntry, LedgerBankEntry, Reconciliation, ReportedDeposit } from './reconciliation.rules';
import type { StoredReconciliation } from './reconciliation.view';

/** A stored reconciliation: its one shape is the view's (src/reconciliation/reconciliation.view.ts). */
export type ReconciliationRow = StoredReconciliation;

const item = (d: ReportedDeposit) => ({ payment: d.paymentId, amount_minor: d.amount.toString(), reported_on: d.reportedOn });
const bankEntry = (e: BankEntry) => ({
  amount_minor: e.amount.toString(),
  booked_on: e.bookedOn,
  end_to_end_id: e.endToEndId,
  reference: e.creditorReference,
  bank_entry_ref: e.entryRef,
});
const ledgerEntry = (e: LedgerBankEntry) => ({
  entry: e.entryId,
  type: e.type,
  amount_minor: e.amount.toString(),
  reference: e.reference,
  bank_entry_ref: e.entryRef,
});

const SELECT = `id, statement_message_id, statement_id, to_char(date, 'YYYY-MM-DD') as date, currency, exponent,
  bank_opening_minor::text, bank_closing_minor::text, ledger_balance_minor::text, owed_total_minor::text,
  reconciling_items, unmatched_bank_entries, unmatched_ledger_entries, breaks, status, created_at, reconciled_at`;

/** Write one statement's reconciliation under `id`, or replace the one its message id already has (keeping that one's id). */
export async function saveReconciliation(
  db: Knex,
  r: Reconciliation & { id: string; statementId: string; exponent: number },
  at: Date,
): Promise<ReconciliationRow> {
  const { rows } = await db.raw<{ rows: ReconciliationRow[] }>(
    `insert into custody_reconciliations (id, statement_message_id, statement_id, date, currency, exponent, bank_opening_minor,
       bank_closing_minor, ledger_balance_minor, owed_total_minor, reconciling_items, unmatched_bank_entries, unmatched_ledger_entries,
       breaks, status, created_at, reconciled_at)
     values (?, ?, ?, ?::date, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?)
     on conflict (statement_message_id) do update set
       statement_id = excluded.statement_id, date = excluded.date, currency = excluded.currency, exponent = excluded.exponent,
       bank_opening_minor = excluded.bank_opening_minor, bank_closing_minor = excluded.bank_closing_minor,
       ledger_balance_minor = excluded.ledger_balance_minor, owed_total_minor = excluded.owed_total_minor,
       reconciling_items = excluded.reconciling_items, unmatched_bank_entries = excluded.unmatched_bank_entries,
       unmatched_ledger_entries = excluded.unmatched_ledger_entries, breaks = excluded.breaks, status = excluded.status,
       reconciled_at = excluded.reconciled_at
     returning ${SELECT}`,
    [
      r.id,
      r.statement,
      r.statementId,
      r.date,
      r.currency,
      r.exponent,
      r.bankOpening?.toString() ?? null,
      r.bankClosing.toString(),
      r.ledgerBalance.toString(),
      r.owedTotal.toString(),
      JSON.stringify(r.reconcilingItems.map(item)),
      JSON.stringify(r.unmatchedBankEntries.map(bankEntry)),
      JSON.stringify(r.unmatchedLedgerEntries.map(ledgerEntry)),
      JSON.stringify(r.breaks),
      r.status,
      at,
      at,
    ],
  );
  return rows[0];
}

/** The closing balance of the newest statement of `currency` dated before `date`, other than `messageId`. */
export async function previousClosing(db: Knex, currency: string, date: string, messageId: string): Promise<bigint | null> {
  const { rows } = await db.raw<{ rows: { closing: string }[] }>(
    `select bank_closing_minor::text as closing from custody_reconciliations
      where currency = ? and date < ?::date and statement_message_id <> ?
      order by date desc, created_at desc limit 1`,
    [currency, date, messageId],
  );
  const row = rows.at(0);
  return row ? BigInt(row.closing) : null;
}

/** Every reconciliation, newest first (by the statement's date, then when it was made). */
export async function listReconciliations(db: Knex): Promise<ReconciliationRow[]> {
  const { rows } = await db.raw<{ rows: ReconciliationRow[] }>(
    `select ${SELECT} from custody_reconciliations order by date desc, created_at desc, id desc`,
  );
  return rows;
}

/** One reconciliation by its id (`rec_…`) or its statement's message id. */
export async function findReconciliation(db: Knex, idOrMessageId: string): Promise<ReconciliationRow | undefined> {
  const { rows } = await db.raw<{ rows: ReconciliationRow[] }>(
    `select ${SELECT} from custody_reconciliations where id = ? or statement_message_id = ? limit 1`,
    [idOrMessageId, idOrMessageId],
  );
  return rows[0];
}

/** Per currency: the difference of the newest statement, and when a statement was last found balanced (null: never). */
export async function reconciliationGauges(db: Knex): Promise<{ currency: string; difference: bigint; lastBalancedAt: Date | null }[]> {
  const { rows } = await db.raw<{ rows: { currency: string; difference: string; last_balanced_at: Date | null }[] }>(
    `select c.currency,
            (select (r.bank_closing_minor - r.ledger_balance_minor)::text from custody_reconciliations r
              where r.currency = c.currency order by r.date desc, r.reconciled_at desc limit 1) as difference,
            (select max(r.reconciled_at) from custody_reconciliations r where r.currency = c.currency and r.status = 'balanced') as last_balanced_at
       from (select distinct currency from custody_reconciliations) c order by c.currency`,
  );
  return rows.map((r) => ({ currency: r.currency, difference: BigInt(r.difference), lastBalancedAt: r.last_balanced_at }));
}

/** The raw bytes of an operator's bank file by its message id, as the inbox stored them (src/payouts/bankFiles.repository.ts). */
export async function statementBytes(db: Knex, messageId: string): Promise<Buffer | undefined> {
  const { rows } = await db.raw<{ rows: { raw: Buffer | null }[] }>(
    'select raw from bank_files where account_id is null and message_id = ? limit 1',
    [messageId],
  );
  const row = rows.at(0);
  return row?.raw ?? undefined;
}
