/**
 * The one writer of the ledger (docs/money.md, "The book"): entries, each a list of transfers between
 * addresses, written with their postings and balances by one statement's CTEs. Every path calls it:
 * a payment step's projection embeds `ledgerCtes` in its own statement (src/payments/projection.repository.ts);
 * a recipient's or a payout's entry runs them alone (`postTransfers`). An entry's id is its
 * idempotency key hashed, so a retried or concurrent writer of the same key writes nothing more.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { type EntryType, type Transfer, postingsOfTransfers } from './ledger.rules';
import { Bindings } from '../platform/database/statement';

/** An entry's id: its idempotency key hashed (`le_` + 26 hex digits of SHA-256). */
export const entryId = (idempotencyKey: string) => `le_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 26)}`;

/** A payment step's idempotency key: the payment, the version the step made and, on a payment created with milestones, the milestone. */
export const paymentEntryKey = (paymentId: string, version: number, milestoneId?: string) =>
  milestoneId === undefined ? `${paymentId}|${version}` : `${paymentId}|${version}|${milestoneId}`;

/** One entry to write: its transfers, what it belongs to, and its code (the entry's type). */
export interface EntryToPost {
  /** Names the movement once: the same key again writes nothing. */
  key: string;
  code: EntryType;
  paymentId: string | null;
  milestoneId: string | null;
  recipientId: string | null;
  /** The version of the payment (or the recipient, or the payout) the movement belongs to. */
  version: number;
  accountId: string;
  livemode: boolean;
  currency: string;
  exponent: number;
  at: Date;
  transfers: readonly Transfer[];
  /** The bank's booking the entry records (docs/bank.md): its date (`BookgDt`), the reference it carried, the bank's own (`AcctSvcrRef`). */
  bank?: BankBooking;
}

/** A booking of the bank, as a ledger entry records it (migration 20261206100000_bank_bookings). */
export interface BankBooking {
  /** `YYYY-MM-DD`. */
  bookedOn: string;
  /** The RF creditor reference of a credit; the EndToEndId of a payout or return. */
  reference: string | null;
  /** `AcctSvcrRef`, when the bank gave one. */
  entryRef: string | null;
}

/**
 * The CTEs that write `entries` (named `ledger_entry`, `posting`, `postings`, `account_balances`;
 * `ledger_entry` returns the ids this statement wrote). Postings and balances move only for an entry
 * the statement wrote. One balance table, `ledger_account_balances`, a row per address (a tenant's
 * kinds per account and mode); the tenant's totals per kind are its GROUP BY (the view
 * `ledger_balances`). Balance rows are taken in one order for every writer (by address), so two
 * writers never wait on each other crosswise. PostgreSQL refuses a party's balance below zero (a
 * trigger) and an unbalanced entry (at commit).
 */
export function ledgerCtes(b: Bindings, entries: readonly EntryToPost[]): string[] {
  if (entries.length === 0) return [];
  const withIds = entries.map((e) => ({ ...e, id: entryId(e.key), postings: postingsOfTransfers(e.transfers) }));
  const entryRows = withIds
    .map(
      (e) =>
        `(${b.add(e.id, 'text')}, ${b.add(e.paymentId, 'text')}, ${b.add(e.version, 'integer')}, ${b.add(e.accountId, 'text')}, ${b.add(
          e.livemode,
          'boolean',
        )}, ${b.add(e.currency, 'text')}, ${b.add(e.exponent, 'smallint')}, ${b.add(e.code, 'text')}, ${b.add(e.at, 'timestamptz')}, ${b.add(
          e.milestoneId,
          'text',
        )}, ${b.add(e.recipientId, 'text')}, ${b.add(e.bank?.bookedOn ?? null, 'date')}, ${b.add(e.bank?.reference ?? null, 'text')}, ${b.add(
          e.bank?.entryRef ?? null,
          'text',
        )})`,
    )
    .join(', ');
  const postingRows = withIds
    .flatMap((e) => e.postings.map((p) => ({ e, p })))
    .map(
      ({ e, p }, i) =>
        `(${b.add(e.id, 'text')}, ${b.add(p.account, 'text')}, ${b.add(p.address, 'text')}, ${b.add(p.amount.toString(), 'bigint')}, ${i}, ${b.add(e.accountId, 'text')}, ${b.add(e.livemode, 'boolean')}, ${b.add(e.currency, 'text')}, ${b.add(e.exponent, 'smallint')})`,
    )
    .join(', ');
  return [
    // No conflict target on purpose: a payment's entries have two unique indexes (src/payments/projection.repository.ts).
    `ledger_entry AS (
      INSERT INTO ledger_entries (id, payment_id, version, account_id, livemode, currency, exponent, type, created_at, milestone_id, recipient_id,
        bank_booked_on, bank_reference, bank_entry_ref)
      VALUES ${entryRows}
      ON CONFLICT DO NOTHING RETURNING id)`,
    `posting AS (SELECT * FROM (VALUES ${postingRows}) AS p(entry_id, account, address, amount, ord, account_id, livemode, currency, exponent))`,
    `postings AS (
      INSERT INTO ledger_postings (entry_id, ledger_account, address, amount_minor)
      SELECT posting.entry_id, posting.account, posting.address, posting.amount FROM posting JOIN ledger_entry ON ledger_entry.id = posting.entry_id
      ORDER BY posting.ord
      RETURNING 1)`,
    // One row per address (a tenant's kinds per account and mode), in one order for every writer.
    `account_balances AS (
      INSERT INTO ledger_account_balances (address, currency, exponent, account_id, livemode, ledger_account, balance_minor)
      SELECT posting.address, posting.currency, posting.exponent, posting.account_id, posting.livemode, posting.account, sum(posting.amount)
      FROM posting JOIN ledger_entry ON ledger_entry.id = posting.entry_id
      GROUP BY posting.address, posting.currency, posting.exponent, posting.account_id, posting.livemode, posting.account
      ORDER BY posting.address, posting.currency, posting.exponent, posting.account_id, posting.livemode
      ON CONFLICT (address, currency, exponent, account_id, livemode)
      DO UPDATE SET balance_minor = ledger_account_balances.balance_minor + excluded.balance_minor
      RETURNING 1)`,
  ];
}

/**
 * Write `entries` (the one statement of `ledgerCtes`), inside the caller's transaction when it has
 * one; answers the ids it wrote (an entry whose key was written before is not among them).
 */
export async function postTransfers(db: Knex | Knex.Transaction, entries: readonly EntryToPost[]): Promise<string[]> {
  if (entries.length === 0) return [];
  const b = new Bindings();
  const ctes = ledgerCtes(b, entries);
  const { rows } = await db.raw<{ rows: { written: string[] }[] }>(
    // PostgreSQL runs every data-modifying CTE to completion, read or not.
    `WITH ${ctes.join(',\n')}\nSELECT array(SELECT id FROM ledger_entry) AS written`,
    b.values as Knex.RawBinding[],
  );
  return rows[0]?.written ?? [];
}
