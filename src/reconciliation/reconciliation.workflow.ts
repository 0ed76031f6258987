/**
 * One statement of the custody account reconciled (docs/reconciliation.md): one run per statement,
 * its id `reconciliation:<message id>`; its current details in Temporal's UI say the outcome,
 * "balanced" or "break of 12.50 EUR". The activity writes one result per message id, so a retry
 * after a worker died half-way leaves one.
 */
import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';

export async function reconciliationWorkflow(input: {
  messageId: string;
}): Promise<{ outcome: 'reconciled' | 'rejected'; summary: string; id?: string }> {
  const { reconcileStatement } = proxyActivities<Activities>({
    startToCloseTimeout: '10 minutes',
    // The activity beats between its queries: a worker killed half-way hands the statement to another after this.
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
    summary: `reconcile statement ${input.messageId}`,
  });
  const result = await reconcileStatement(input);
  setCurrentDetails(result.summary);
  return result;
}
