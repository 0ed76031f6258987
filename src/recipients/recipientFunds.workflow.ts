/**
 * A recipient's pending money made available once its payouts are enabled (docs/money.md): a worker
 * step, since only the workers write the ledger (docs/architecture.md, "One writer per aggregate").
 * Started by the API after the verification commits, and awaited before it answers.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';

const { makeRecipientPendingAvailable } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** `version`: the recipient's version whose verification enabled its payouts (names the run). */
export async function recipientFundsWorkflow(input: { recipientId: string; version: number }): Promise<void> {
  await makeRecipientPendingAvailable(input);
}
