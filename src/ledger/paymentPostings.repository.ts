/**
 * The ledger's side of a transition's projection (./projection.ts): the recipients a step's releases
 * credit, read under a lock with whether their payouts are enabled, and the leaves of the ledger
 * entries another writer committed first, from their stored postings (docs/audit.md).
 */
import type { Knex } from 'knex';
import { ledgerEntryLeaf } from '../audit/trailLeaves.rules';
import { LEDGER_ACCOUNTS, type LedgerAccount, entryTypeOf, postingsOf } from './ledger.rules';
import type { HistoryEntry, PaymentState } from '../payments/paymentTypes.rules';
import { ledgerMovements } from '../payments/milestones.rules';
import { appendLeaf } from '../audit/trail.repository';
import { ledgerEntryId } from './ledger.repository';

/** Whether payouts are enabled, per recipient a step's releases credit (read under a lock: `withRecipients`). */
export type PayoutsEnabled = ReadonlyMap<string, boolean>;

/** The recipient a milestone's release credits, when the milestone names one and the movement releases money. */
export function creditedRecipient(state: PaymentState, milestoneId: string, released: bigint): string | undefined {
  if (released === 0n) return undefined;
  return state.milestones.find((m) => m.id === milestoneId)?.recipientId ?? undefined;
}

/** Ledger postings as one comparable text: `account:amount`, by account in code-unit order (as `COLLATE "C"`). */
export function postingsSignature(postings: { account: string; amount: bigint }[]): string {
  return postings
    .map((p) => `${p.account}:${p.amount.toString()}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join(',');
}

/**
 * The leaves of `entryIds` (this transition's ledger entries another writer committed) from their
 * stored postings, which are the ones that moved the balances. Every other field of a ledger entry's
 * leaf follows from the payment and the history entry, as each writer computed them alike.
 */
export async function appendStoredEntryLeaves(
  db: Knex | Knex.Transaction,
  state: PaymentState,
  entry: HistoryEntry,
  entryIds: string[],
  payouts: PayoutsEnabled,
): Promise<void> {
  if (entryIds.length === 0) return;
  const rows: { entry_id: string; ledger_account: string; amount_minor: string }[] = await db('ledger_postings')
    .whereIn('entry_id', entryIds)
    .select('entry_id', 'ledger_account', 'amount_minor');
  for (const { milestoneId, movement } of ledgerMovements(state, entry)) {
    const id = ledgerEntryId(state.id, entry.seq, state.staged ? milestoneId : undefined);
    if (!entryIds.includes(id)) continue;
    const recipientId = creditedRecipient(state, milestoneId, movement.released);
    // In the order this writer would have posted them, so that equal postings make the same text.
    const order = postingsOf(movement, recipientId ? { payoutsEnabled: payouts.get(recipientId) ?? false } : undefined).map(
      (p) => p.account,
    );
    const rank = (a: LedgerAccount) => (order.includes(a) ? order.indexOf(a) : order.length + LEDGER_ACCOUNTS.indexOf(a));
    const postings = rows
      .filter((r) => r.entry_id === id)
      .map((r) => ({ account: r.ledger_account as LedgerAccount, amount: BigInt(r.amount_minor) }))
      .sort((a, b) => rank(a.account) - rank(b.account));
    await appendLeaf(
      db,
      ledgerEntryLeaf({
        entryId: id,
        paymentId: state.id,
        accountId: state.accountId,
        livemode: state.livemode,
        version: entry.seq,
        type: entryTypeOf(movement),
        currency: state.currency,
        exponent: state.amountExponent,
        at: entry.at,
        postings,
        ...(state.staged ? { milestoneId } : {}),
        ...(recipientId ? { recipientId } : {}),
      }),
    );
  }
}

/**
 * Run `project` with whether payouts are enabled for each recipient the step's releases credit. A
 * step that credits none (every step of a payment without a recipient) runs as it is, one statement;
 * one that credits some first takes those recipients' rows FOR SHARE in the same transaction, so a
 * verification enabling payouts (which moves everything pending, src/ledger/ledgerAccounts.repository.ts) is
 * either wholly before this release, which then credits available, or wholly after it, and moves it.
 * Lock order: recipients, then the projection's rows, as the verification's.
 */
export async function withRecipients<T>(
  db: Knex | Knex.Transaction,
  state: PaymentState,
  entry: HistoryEntry,
  project: (q: Knex | Knex.Transaction, payouts: PayoutsEnabled) => Promise<T>,
): Promise<T> {
  const credited = [
    ...new Set(
      ledgerMovements(state, entry).flatMap(({ milestoneId, movement }) => creditedRecipient(state, milestoneId, movement.released) ?? []),
    ),
  ].sort();
  if (credited.length === 0) return project(db, new Map());
  return db.transaction(async (tx) => {
    const { rows } = await tx.raw<{ rows: { id: string; payouts_enabled: boolean }[] }>(
      `SELECT id, payouts_enabled FROM recipients WHERE id = ANY(?::text[]) ORDER BY id FOR SHARE`,
      [credited],
    );
    return project(tx, new Map(rows.map((r) => [r.id, r.payouts_enabled])));
  });
}
