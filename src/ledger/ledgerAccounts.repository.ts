/**
 * The ledger's addressed accounts (docs/money.md): entries that belong to no payment step — a
 * recipient's pending money made available (./availability.repository.ts), and a payout's steps
 * between a recipient's accounts — written by the ledger's one writer (./transfers.repository.ts);
 * and balances at any instant, summed from the entries.
 */
import type { Knex } from 'knex';
import {
  type EntryType,
  type LedgerAccount,
  type RecipientBalance,
  LEDGER_ACCOUNTS,
  RECIPIENT_BALANCES,
  recipientAddress,
  transfersBetween,
} from './ledger.rules';
import { entryId, paymentEntryKey, postTransfers } from './transfers.repository';
import { ledgerEntryLeaf } from '../audit/trailLeaves.rules';
import { appendLeaf } from '../audit/trail.repository';
import type { LedgerEntryRow } from './ledger.repository';
import type { Scope } from '../tenants/tenancy.rules';

export interface StandaloneEntry {
  /** Names the movement once: a retry with the same key writes nothing. */
  idempotencyKey: string;
  recipientId: string;
  /** The recipient's version the movement belongs to. */
  version: number;
  accountId: string;
  livemode: boolean;
  currency: string;
  exponent: number;
  type: EntryType;
  at: Date;
  postings: { account: LedgerAccount; address: string; amount: bigint }[];
}

/**
 * Write one entry of a recipient's own (no payment) through the ledger's one writer
 * (src/ledger/transfers.repository.ts), inside `tx`; false when its key was written before.
 * PostgreSQL refuses it (a check_violation, 23514, failing `tx`) when it would take a recipient's
 * account below zero, or when its postings do not sum to zero (at commit).
 */
export async function postEntry(tx: Knex.Transaction, e: StandaloneEntry): Promise<boolean> {
  // Its custody-trail leaf is the workers' to write (`appendStandaloneEntryLeaves`): this may run in the API,
  // whose database role cannot write the trail (docs/audit.md).
  const written = await postTransfers(tx, [
    {
      key: e.idempotencyKey,
      code: e.type,
      paymentId: null,
      milestoneId: null,
      recipientId: e.recipientId,
      version: e.version,
      accountId: e.accountId,
      livemode: e.livemode,
      currency: e.currency,
      exponent: e.exponent,
      at: e.at,
      transfers: transfersBetween(e.postings),
    },
  ]);
  return written.length > 0;
}

/** The stored entry's fields its leaf records. */
type StoredEntry = Omit<LedgerEntryRow, 'created_at'> & { created_at: Date | string };

/**
 * The custody trail's leaves of ledger entries, from the stored entries and postings (docs/audit.md):
 * the one path every entry's leaf takes, whoever wrote the entry. The stored postings are the ones
 * that moved the balances, so the leaf needs no comparison with what a writer computed. A payment's
 * entry names its milestone only on a payment created with milestones (its key names the milestone:
 * src/ledger/transfers.repository.ts). Idempotent by the leaf's key.
 */
export async function appendEntryLeaves(db: Knex | Knex.Transaction, entries: readonly StoredEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const postings: { entry_id: string; ledger_account: LedgerAccount; amount_minor: string }[] = await db('ledger_postings')
    .whereIn(
      'entry_id',
      entries.map((e) => e.id),
    )
    .select('entry_id', 'ledger_account', 'amount_minor');
  for (const e of entries) {
    const staged = e.payment_id !== null && e.id !== entryId(paymentEntryKey(e.payment_id, e.version));
    await appendLeaf(
      db,
      ledgerEntryLeaf({
        entryId: e.id,
        paymentId: e.payment_id,
        accountId: e.account_id,
        livemode: e.livemode,
        version: e.version,
        type: e.type,
        currency: e.currency,
        exponent: e.exponent,
        at: new Date(e.created_at).toISOString(),
        postings: postings
          .filter((p) => p.entry_id === e.id)
          .sort((a, b) => LEDGER_ACCOUNTS.indexOf(a.ledger_account) - LEDGER_ACCOUNTS.indexOf(b.ledger_account))
          .map((p) => ({ account: p.ledger_account, amount: BigInt(p.amount_minor) })),
        ...(staged && e.milestone_id ? { milestoneId: e.milestone_id } : {}),
        ...(e.recipient_id ? { recipientId: e.recipient_id } : {}),
      }),
    );
  }
}

const ENTRY_COLUMNS = [
  'e.id',
  'e.payment_id',
  'e.milestone_id',
  'e.recipient_id',
  'e.version',
  'e.account_id',
  'e.livemode',
  'e.currency',
  'e.exponent',
  'e.type',
  'e.created_at',
];

/** The leaves of the entries `ids` (a transition's, once its publication has written them), in the order given. */
export async function appendLeavesOfEntries(db: Knex | Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows: StoredEntry[] = await db('ledger_entries as e').whereIn('e.id', ids).select(ENTRY_COLUMNS);
  await appendEntryLeaves(
    db,
    ids.flatMap((id) => rows.filter((r) => r.id === id)),
  );
}

/**
 * The leaves of the standalone entries (no payment) that have none yet: a recipient's or a payout's
 * entry is written by an activity that appends no leaf, so the head signer appends them before it
 * signs each tree head. Those written at or after `since` (all when null; the
 * partial index ledger_entries_standalone), oldest first, a page at a time. Answers how many it appended.
 */
export async function appendStandaloneEntryLeaves(db: Knex, since: Date | null, page = 1000): Promise<number> {
  let appended = 0;
  for (;;) {
    const unleafed = db('ledger_entries as e')
      .whereNull('e.payment_id')
      .whereNotExists(db('audit_leaves as l').select(db.raw('1')).where('l.entry_key', db.raw(`'ledger:' || e.id`)));
    const entries: StoredEntry[] = await (since ? unleafed.where('e.created_at', '>=', since) : unleafed)
      .orderBy([{ column: 'e.created_at' }, { column: 'e.id' }])
      .limit(page)
      .select(ENTRY_COLUMNS);
    if (entries.length === 0) return appended;
    await appendEntryLeaves(db, entries);
    appended += entries.length;
    if (entries.length < page) return appended;
  }
}

export interface RecipientBalanceRow {
  currency: string;
  exponent: number;
  balance: RecipientBalance;
  amount: bigint;
}

/** A recipient's balances per currency, as kept, or as they stood at `asOf` (summed from the entries). */
export async function recipientBalances(db: Knex, recipientId: string, asOf?: Date): Promise<RecipientBalanceRow[]> {
  const addresses = RECIPIENT_BALANCES.map((b) => recipientAddress(recipientId, b));
  const rows = asOf
    ? (
        await db.raw<{ rows: { address: string; currency: string; exponent: number; amount: string }[] }>(
          `SELECT p.address, e.currency, e.exponent, sum(p.amount_minor) AS amount
           FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
           WHERE p.address = ANY(?::text[]) AND e.created_at <= ?
           GROUP BY p.address, e.currency, e.exponent`,
          [addresses, asOf],
        )
      ).rows
    : await db<{ address: string; currency: string; exponent: number; amount: string }>('ledger_account_balances')
        .whereIn('address', addresses)
        .select('address', 'currency', 'exponent', 'balance_minor as amount');
  return rows.map((r) => ({
    currency: r.currency,
    exponent: Number(r.exponent),
    balance: RECIPIENT_BALANCES[addresses.indexOf(r.address)],
    amount: BigInt(r.amount),
  }));
}

/** The caller's balances per currency, exponent and kind as they stood at `asOf`, summed from the entries. */
export async function balancesAsOf(db: Knex, scope: Scope, asOf: Date) {
  const { rows } = await db.raw<{ rows: { currency: string; exponent: number; ledger_account: LedgerAccount; balance_minor: string }[] }>(
    `SELECT e.currency, e.exponent, p.ledger_account, sum(p.amount_minor) AS balance_minor
     FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
     WHERE e.account_id = ? AND e.livemode = ? AND e.created_at <= ?
     GROUP BY e.currency, e.exponent, p.ledger_account
     ORDER BY e.currency, e.exponent, p.ledger_account`,
    [scope.accountId, scope.livemode, asOf],
  );
  return rows.map((r) => ({ ...r, balance_minor: BigInt(r.balance_minor) }));
}
