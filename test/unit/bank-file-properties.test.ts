/**
 * Properties of matching bank files to payouts (src/payouts/bankFileMatch.format.ts) over random files and
 * payouts: every step a plan takes is one the payout table allows, a file taken a second time takes
 * no step, and the money of each payout sits on exactly one of the recipient's balances after it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PayoutSnapshot, planBankFile } from '../../src/payouts/bankFileMatch.format';
import type { BankFile } from '../../src/payouts/bankFileRead.format';
import { PAYOUT_STATUSES, type PayoutStatus, checkPayoutTransition, payoutBalances } from '../../src/payouts/payout.rules';
import { statementOf } from './fixtures';

/** Statuses a payout reaches, with the path from creation that leads there. */
const PATHS: Record<PayoutStatus, PayoutStatus[]> = {
  pending: [],
  in_transit: ['in_transit'],
  paid: ['in_transit', 'paid'],
  failed: ['in_transit', 'failed'],
  canceled: ['canceled'],
  returned: ['in_transit', 'paid', 'returned'],
};

const ids = ['po-A', 'po-B', 'po-C', 'po-D'];
const arbitraryPayouts = fc.tuple(...ids.map(() => fc.constantFrom(...PAYOUT_STATUSES)));
const arbitraryEntries = fc.array(
  fc.record({
    endToEndId: fc.constantFrom(...ids, 'po-other', null),
    outcome: fc.constantFrom('paid' as const, 'failed' as const, 'returned' as const, 'no_change' as const),
    wrongAmount: fc.boolean(),
  }),
  { maxLength: 12 },
);

const fileOf = (
  entries: { endToEndId: string | null; outcome: BankFile['entries'][number]['outcome']; wrongAmount: boolean }[],
): BankFile =>
  statementOf(
    entries.map((e) => ({
      endToEndId: e.endToEndId,
      amount: e.wrongAmount ? 101n : 100n,
      currency: 'EUR',
      outcome: e.outcome,
      reasonCode: null,
      failureCode: e.outcome === 'failed' || e.outcome === 'returned' ? 'could_not_process' : null,
    })),
  );

describe('bank file matching, for any file and payouts', () => {
  it('takes only steps the table allows, takes none the second time, and leaves each amount on one balance', () => {
    fc.assert(
      fc.property(arbitraryPayouts, arbitraryEntries, (statuses, entries) => {
        const payouts = new Map<string, PayoutSnapshot>(
          ids.map((id, i) => [id, { id, endToEndId: id, status: statuses[i], amount: 100n, currency: 'EUR', messageId: 'B-1' }]),
        );
        const paths = new Map(ids.map((id, i) => [id, [...PATHS[statuses[i]]]]));
        const file = fileOf(entries);
        const plan = planBankFile(file, payouts);
        // Apply the plan as the use case would: each step through the table.
        for (const entry of plan.entries) {
          const payout = payouts.get(entry.endToEndId)!;
          let status = payout.status;
          for (const step of entry.steps) {
            const check = checkPayoutTransition(status, step);
            expect(check.ok, `${step} from ${status}`).toBe(true);
            if (check.ok) status = check.transition.to;
            paths.get(payout.id)!.push(status);
          }
          payouts.set(payout.endToEndId, { ...payout, status });
        }
        // Every entry is answered once, and nothing on a guess: a wrong amount, another account's id or none changes no payout.
        expect(plan.entries.length + plan.unmatched.length).toBe(file.entries.length);
        expect(plan.entries.every((e) => e.amount === 100n && ids.includes(e.endToEndId))).toBe(true);
        // The same file again: no step.
        expect(planBankFile(file, payouts).entries.flatMap((e) => e.steps)).toEqual([]);
        for (const path of paths.values()) {
          const balances = Object.values(payoutBalances(100n, path)).filter((v) => v !== 0n);
          expect(balances.length === 0 || (balances.length === 2 && balances.includes(-100n) && balances.includes(100n))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
