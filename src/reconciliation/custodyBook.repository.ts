/**
 * The custody account at the bank as the ledger tells it (docs/reconciliation.md, docs/money.md):
 * the one definition of its balance at the end of a day, of the ledger's entries the bank booked on
 * a day, and of the money the service owes. Live mode only: test mode's money never reaches a bank.
 *
 * Which postings are the bank's: every posting to `bank:custody` (a credit funding a payment or an
 * unapplied credit, a return paid back), and the `paid_out` postings of the payout steps the bank
 * booked (`payout_paid`, `payout_returned`), which keep their recipient's accounts and record the
 * booking's columns (migrations/20261206100000_bank_bookings.js). Each entry's amount is signed as
 * the bank sees it: + credit, − debit, i.e. the negated sum of those postings.
 */
import type { Knex } from 'knex';
import type { LedgerBankEntry, ReportedDeposit } from './reconciliation.rules';

export const CUSTODY_BANK_ADDRESS = 'bank:custody';

/** The postings of an entry that moved money at the custody account, by address and entry type. */
const BANK_POSTING = `(p.address = '${CUSTODY_BANK_ADDRESS}'
  or (e.type in ('payout_paid', 'payout_returned') and p.address like 'recipient:%:paid_out'))`;

/** The ledger's balance of the custody bank account at the end of `date` (minor units, + money at the bank). */
export async function custodyBankBalance(db: Knex, currency: string, date: string): Promise<bigint> {
  const { rows } = await db.raw<{ rows: { total: string | null }[] }>(
    `select (-coalesce(sum(p.amount_minor), 0))::text as total
       from ledger_entries e join ledger_postings p on p.entry_id = e.id
      where e.livemode and e.currency = ? and e.bank_booked_on is not null and e.bank_booked_on <= ?::date and ${BANK_POSTING}`,
    [currency, date],
  );
  return BigInt(rows[0]?.total ?? '0');
}

/** The ledger's entries the bank booked on `date`, as the bank sees them. */
export async function custodyBankEntriesOn(db: Knex, currency: string, date: string): Promise<LedgerBankEntry[]> {
  const { rows } = await db.raw<{
    rows: { id: string; type: string; amount: string; bank_reference: string | null; bank_entry_ref: string | null }[];
  }>(
    `select e.id, e.type, (-sum(p.amount_minor))::text as amount, e.bank_reference, e.bank_entry_ref
       from ledger_entries e join ledger_postings p on p.entry_id = e.id
      where e.livemode and e.currency = ? and e.bank_booked_on = ?::date and ${BANK_POSTING}
      group by e.id, e.type, e.bank_reference, e.bank_entry_ref, e.created_at
     having sum(p.amount_minor) <> 0
      order by e.created_at, e.id`,
    [currency, date],
  );
  return rows.map((r) => ({
    entryId: r.id,
    type: r.type,
    amount: BigInt(r.amount),
    reference: r.bank_reference,
    entryRef: r.bank_entry_ref,
  }));
}

/**
 * What the service owes, live, in `currency`, before the reconciling items are taken off: every
 * payment's custody balance, every recipient's pending, available and in-transit balance, the
 * unapplied credits and the fees not yet swept.
 */
export async function owedBalances(db: Knex, currency: string): Promise<bigint> {
  const { rows } = await db.raw<{ rows: { total: string | null }[] }>(
    `select coalesce(sum(balance_minor), 0)::text as total from ledger_account_balances
      where livemode and currency = ?
        and (address like 'escrow:%' or address like 'bank_credit:%' or address = 'platform_fees'
             or address ~ '^recipient:.*:(pending|available|in_transit)$')`,
    [currency],
  );
  return BigInt(rows[0]?.total ?? '0');
}

/**
 * The deposits the platform reported (funding "api": a `deposit` entry, payer_deposits → escrow)
 * that no booked credit has settled yet (a `bank_settlement` entry, bank:custody → payer_deposits):
 * per payment, what payer_deposits still lacks, and the day it was reported.
 */
export async function reportedDepositsNotSeen(db: Knex, currency: string): Promise<ReportedDeposit[]> {
  const { rows } = await db.raw<{ rows: { payment_id: string; amount: string; reported_on: string }[] }>(
    `select e.payment_id, (-sum(p.amount_minor))::text as amount,
            to_char(min(e.created_at) filter (where e.type = 'deposit') at time zone 'UTC', 'YYYY-MM-DD') as reported_on
       from ledger_entries e join ledger_postings p on p.entry_id = e.id
      where e.livemode and e.currency = ? and p.address = 'payer_deposits' and e.payment_id is not null
        and e.type in ('deposit', 'bank_settlement')
      group by e.payment_id
     having sum(p.amount_minor) < 0
      order by min(e.created_at), e.payment_id`,
    [currency],
  );
  return rows.map((r) => ({ paymentId: r.payment_id, amount: BigInt(r.amount), reportedOn: r.reported_on }));
}
