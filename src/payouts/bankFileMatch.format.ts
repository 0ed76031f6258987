/**
 * What a bank file does to payouts (docs/payouts.md, "Matching a file to payouts"): each entry of a
 * read file matched by EndToEndId to a payout of the account and mode that sent it, and the steps
 * of the payout table (src/payouts/payout.rules.ts) it takes. Pure: the use case looks the payouts up,
 * hands them in, and applies the plan; nothing here writes.
 */
import {
  type PayoutAction,
  type PayoutFailureCode,
  type PayoutStatus,
  checkPayoutTransition,
  failureCodeOfIsoReason,
} from './payout.rules';
import type { BankFile, BankFileEntry } from './bankFileRead.format';

/** What the plan needs of a payout. */
export interface PayoutSnapshot {
  id: string;
  endToEndId: string;
  status: PayoutStatus;
  amount: bigint;
  currency: string;
  /** The pain.001 file (its MsgId) the payout went out in; null while it is in none. */
  messageId: string | null;
}

/**
 * Why an entry changes no payout, for an operator (docs/payouts.md, "Matching a file to payouts"):
 * it names no EndToEndId; no payout of this account and mode has it (another account's, or none);
 * the bank's amount or currency is not the payout's (nothing is changed on a guess); what the bank
 * says cannot follow the payout's status (a rejection of a payout already paid); the payout is not
 * in the file the entry is about (docs/bank.md, "What a file may change"): a pain.002 answers only
 * the payouts of the pain.001 its `OrgnlMsgId` names, and a booked debit or a return is only ever
 * about a payout that went out in a file.
 */
export const UNMATCHED_REASONS = [
  'no_end_to_end_id',
  'unknown_end_to_end_id',
  'amount_mismatch',
  'status_conflict',
  'not_in_file',
] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

export interface MatchedEntry {
  endToEndId: string;
  amount: bigint | null;
  currency: string | null;
  outcome: BankFileEntry['outcome'];
  payoutId: string;
  /** The payout's steps, in order; empty when the payout already shows what the entry says (a notification, then the statement). */
  steps: PayoutAction[];
  failureCode: PayoutFailureCode | null;
}

export interface UnmatchedEntry {
  endToEndId: string | null;
  amount: bigint | null;
  currency: string | null;
  reason: UnmatchedReason;
}

export interface BankFilePlan {
  entries: MatchedEntry[];
  unmatched: UnmatchedEntry[];
}

/**
 * The steps that bring a payout from `status` to what the entry says, if the table allows them.
 * A debit booked for a payout still `pending` was sent (its file reached the bank before the
 * service recorded it), so it is sent, then paid; a return seen before the payment was, paid,
 * then returned. Null: the entry contradicts the payout.
 */
function stepsFor(status: PayoutStatus, outcome: 'paid' | 'failed' | 'returned'): PayoutAction[] | null {
  const target: PayoutStatus = outcome;
  // A returned payout was paid first: a late report of the payment is already shown.
  if (status === target || (outcome === 'paid' && status === 'returned')) return [];
  const routes: Record<typeof outcome, PayoutAction[][]> = {
    paid: [['pay'], ['send', 'pay']],
    failed: [['fail']],
    returned: [['return'], ['pay', 'return'], ['send', 'pay', 'return']],
  };
  for (const route of routes[outcome]) {
    let at = status;
    const allowed = route.every((action) => {
      const check = checkPayoutTransition(at, action);
      if (check.ok) at = check.transition.to;
      return check.ok;
    });
    if (allowed && at === target) return route;
  }
  return null;
}

/**
 * Plan a read file against the payouts it names. `payouts`: those of the sending account and mode,
 * by EndToEndId. `ofOriginalFile`: for a pain.002 that rejects a whole credit transfer file without
 * listing its transactions, the payouts that file carried.
 */
export function planBankFile(
  file: BankFile,
  payouts: ReadonlyMap<string, PayoutSnapshot>,
  ofOriginalFile: readonly PayoutSnapshot[] = [],
): BankFilePlan {
  const plan: BankFilePlan = { entries: [], unmatched: [] };
  // Statuses as this file's earlier entries leave them (a statement may pay and return one payout).
  const statuses = new Map<string, PayoutStatus>();
  const entries: BankFileEntry[] =
    file.groupStatus === 'RJCT' && file.entries.length === 0
      ? ofOriginalFile.map((p) => ({
          endToEndId: p.endToEndId,
          amount: null,
          currency: null,
          outcome: 'failed',
          reasonCode: null,
          failureCode: failureCodeOfIsoReason(file.groupReasonCode),
        }))
      : file.entries;
  for (const entry of entries) {
    const { endToEndId, amount, currency } = entry;
    if (endToEndId === null) {
      plan.unmatched.push({ endToEndId, amount, currency, reason: 'no_end_to_end_id' });
      continue;
    }
    const payout = payouts.get(endToEndId) ?? ofOriginalFile.find((p) => p.endToEndId === endToEndId);
    if (!payout) {
      plan.unmatched.push({ endToEndId, amount, currency, reason: 'unknown_end_to_end_id' });
      continue;
    }
    // What the bank says of a payout is only about a file the service wrote: a pain.002 about the
    // one its OrgnlMsgId names, a booking about one the payout went out in. Anything else is forged
    // or mistaken, and changes nothing (docs/bank.md, "What a file may change").
    const pain002 = file.messageType === 'pain.002.001.10';
    const inFile = pain002 ? payout.messageId === file.originalMessageId : payout.messageId !== null;
    if (!inFile && (pain002 || entry.outcome !== 'no_change')) {
      plan.unmatched.push({ endToEndId, amount, currency, reason: 'not_in_file' });
      continue;
    }
    if ((amount !== null && amount !== payout.amount) || (currency !== null && currency !== payout.currency)) {
      plan.unmatched.push({ endToEndId, amount, currency, reason: 'amount_mismatch' });
      continue;
    }
    const status = statuses.get(payout.id) ?? payout.status;
    const steps = entry.outcome === 'no_change' ? [] : stepsFor(status, entry.outcome);
    if (steps === null) {
      plan.unmatched.push({ endToEndId, amount, currency, reason: 'status_conflict' });
      continue;
    }
    // Where the steps leave it, which is not always the outcome: a late payment of a returned payout stays returned.
    statuses.set(
      payout.id,
      steps.reduce((at, step) => {
        const check = checkPayoutTransition(at, step);
        return check.ok ? check.transition.to : at;
      }, status),
    );
    plan.entries.push({ endToEndId, amount, currency, outcome: entry.outcome, payoutId: payout.id, steps, failureCode: entry.failureCode });
  }
  return plan;
}
