/**
 * The ledger check (docs/money.md), run in a worker, which holds the database: started every
 * LEDGER_VERIFY_INTERVAL by a Temporal Schedule, and by `npm run ledger:verify`.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';

const { verifyLedgerInvariants, checkLedgerPage } = proxyActivities<Activities>({
  // One page of payments (LEDGER_VERIFY_PAGE_SIZE), each open one's workflow queried with a 2 s deadline.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

export interface LedgerCheckResult {
  violations: number;
  /** The first lines of the report (the metric says the same). */
  report: string[];
  /** How many payments were checked, and whether the run reached the last payment. */
  payments?: number;
  wrapped?: boolean;
}

/**
 * No input (the schedule): one bounded run, the next page of payments of this task queue's check.
 * `accountId`: every invariant of that account. `all`: a full pass, page after page from the first
 * payment, under a cursor of its own.
 */
export async function ledgerVerifyWorkflow(input: { accountId?: string; all?: boolean } = {}): Promise<LedgerCheckResult> {
  if (input.accountId) return verifyLedgerInvariants(input.accountId);
  const { taskQueue, workflowId } = workflowInfo();
  if (!input.all) return checkLedgerPage(taskQueue);
  // Each page repeats the ledger-wide invariants: their breaches are counted once.
  const breaches = new Set<string>();
  let payments = 0;
  for (let fromFirst = true; ; fromFirst = false) {
    const page = await checkLedgerPage(`${taskQueue}:${workflowId}`, fromFirst);
    payments += page.payments;
    if (page.violations) page.report.slice(1).forEach((line) => breaches.add(line));
    if (page.wrapped) break;
  }
  const n = breaches.size;
  const head = n ? `ledger verification failed: ${n} breach${n === 1 ? '' : 'es'}` : 'ledger verified: every invariant holds';
  return { violations: n, report: [head, ...breaches], payments, wrapped: true };
}
