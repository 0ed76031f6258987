/**
 * The ledger check's payout invariants (docs/money.md, "Payouts in the check"): each payout's
 * entries are exactly those its status implies, moving exactly its amount between its recipient's
 * balances; and a payout whose run may still answer agrees with its workflow on its status.
 */
import type { Knex } from 'knex';
import { recipientAddress } from './ledger.rules';
import { PAYOUT_ENTRY_TYPES, type PayoutStatus, payoutEntryKey } from '../payouts/payout.rules';
import { expectedPayoutEntries, expectedPayoutNet } from '../payouts/payoutEntries.rules';
import type { LedgerViolation } from './ledger.repository';
import { entryId } from './transfers.repository';
import { type StoredPayout, payoutRow } from '../payouts/payouts.repository';

/** What a payout's workflow answers of it: its status and version; undefined when no run answers. */
export type PayoutWorkflowState = (payoutId: string) => Promise<{ status: PayoutStatus; version: number } | undefined>;

interface PayoutCheckRow {
  id: string;
  recipient_id: string;
  status: PayoutStatus;
  version: number;
  amount: bigint;
}

/**
 * The payout invariants for the `limit` payouts after `after` in id order (all when no page),
 * of one account when `accountId` is given; answers the breaches and the last payout checked.
 */
export async function findPayoutViolations(
  db: Knex,
  payoutState: PayoutWorkflowState | undefined,
  accountId?: string,
  page?: { after: string | null; limit: number },
): Promise<{ violations: LedgerViolation[]; checked: string[] }> {
  const query = db('payouts').orderBy('id').select('id', 'recipient_id', 'status', 'version', 'amount');
  if (accountId) query.where('account_id', accountId);
  if (page?.after) query.andWhere('id', '>', page.after);
  if (page) query.limit(page.limit);
  const payouts = ((await query) as StoredPayout<PayoutCheckRow>[]).map((r) => payoutRow(r));
  const violations: LedgerViolation[] = [];
  const entryIds = new Map(payouts.flatMap((p) => PAYOUT_ENTRY_TYPES.map((t) => [entryId(payoutEntryKey(p.id, t)), p.id] as const)));
  const postings: { id: string; type: string; address: string | null; amount_minor: string | null }[] = await db('ledger_entries as e')
    .leftJoin('ledger_postings as p', 'p.entry_id', 'e.id')
    .whereIn('e.id', [...entryIds.keys()])
    .select('e.id', 'e.type', 'p.address', 'p.amount_minor');
  for (const p of payouts) {
    const mine = postings.filter((r) => entryIds.get(r.id) === p.id);
    const types = [...new Set(mine.map((r) => r.type))].sort();
    const expected = [...expectedPayoutEntries(p.status)].sort();
    if (types.join(',') !== expected.join(',')) {
      violations.push({
        check: 'payout_entries',
        payoutId: p.id,
        message: `the payout is ${p.status}: its entries are ${types.join(', ') || 'none'}; a ${p.status} payout has ${expected.join(', ')}`,
      });
    }
    const net = expectedPayoutNet(p.status, p.amount);
    const moved = (Object.keys(net) as (keyof typeof net)[]).map((balance) => {
      const address = recipientAddress(p.recipient_id, balance);
      const sum = mine.filter((r) => r.address === address).reduce((s, r) => s + BigInt(r.amount_minor ?? 0), 0n);
      return { balance, sum, want: net[balance] };
    });
    const elsewhere = mine.filter(
      (r) => r.address !== null && !moved.some((m) => r.address === recipientAddress(p.recipient_id, m.balance)),
    );
    if (moved.some((m) => m.sum !== m.want) || elsewhere.length > 0) {
      violations.push({
        check: 'payout_entries',
        payoutId: p.id,
        message: `its entries move ${moved.map((m) => `${m.balance} ${m.sum}`).join(', ')}${elsewhere.length ? ` and post to ${elsewhere.map((r) => r.address).join(', ')}` : ''}; a ${p.status} payout of ${p.amount} moves ${moved.map((m) => `${m.balance} ${m.want}`).join(', ')}`,
      });
    }
  }
  if (payoutState) {
    // Every payout of the page, a few at a time: one whose row says it ended may have a run that says otherwise.
    // Only a run that must still answer (pending, in transit) is a breach when none does; an ended one's history may be gone.
    const open = payouts;
    for (let i = 0; i < open.length; i += 16) {
      const batch = open.slice(i, i + 16);
      const states = await Promise.all(batch.map((p) => payoutState(p.id)));
      batch.forEach((p, k) => {
        const state = states[k];
        if (!state) {
          if (p.status !== 'paid')
            violations.push({ check: 'workflow_state', payoutId: p.id, message: `no workflow answered for this ${p.status} payout` });
          return;
        }
        // Its workflow ahead of the row: a step's write in flight, not a breach.
        if (state.version > p.version) return;
        if (state.version < p.version || state.status !== p.status) {
          violations.push({
            check: 'workflow_state',
            payoutId: p.id,
            message: `the workflow has the payout ${state.status} (version ${state.version}); the read model ${p.status} (version ${p.version})`,
          });
        }
      });
    }
  }
  return { violations, checked: payouts.map((p) => p.id) };
}
