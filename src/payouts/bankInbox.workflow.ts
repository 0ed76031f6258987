/**
 * The bank inbox (docs/bank.md, "The inbox"), started every BANK_INBOX_INTERVAL by a Temporal
 * Schedule: one activity takes every new file in BANK_INBOX_DIR. The schedule skips a run while
 * the last is still going, so one taker at a time reads the inbox; `npm run bank-files -- take`
 * beside it is kept apart by each file's claim (src/payouts/bankFiles.repository.ts).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';

export async function bankInboxWorkflow(): Promise<{ taken: number; rejected: number; waiting: number }> {
  const { takeBankInbox } = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    // A worker that dies mid-file: another takes the inbox over after this, and the file's lease after its own time.
    heartbeatTimeout: '2 minutes',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
    summary: 'take the new files of the bank inbox',
  });
  return takeBankInbox();
}
