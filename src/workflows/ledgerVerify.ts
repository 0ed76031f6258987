/** The periodic ledger check (docs/money.md): started by a Temporal Schedule, one activity that checks every invariant. */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { verifyLedgerInvariants } = proxyActivities<Activities>({
  // A full check reads every payment's amounts and queries the open ones' workflows.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/**
 * Returns how many breaches were found and the first lines of the report (the metric says the
 * same). The schedule checks everything; `accountId` narrows a check started by hand to one account.
 */
export async function ledgerVerifyWorkflow(input: { accountId?: string } = {}): Promise<{ violations: number; report: string[] }> {
  return input.accountId ? verifyLedgerInvariants(input.accountId) : verifyLedgerInvariants();
}
