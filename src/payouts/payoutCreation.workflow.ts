/**
 * A payout's row and its creation's entry (available → in_transit) written by a worker, since only
 * the workers write the ledger (docs/architecture.md, "One writer per aggregate"). The API runs it
 * (workflow id `payout-create-<payout id>`) after its checks, awaits it, then starts the payout's own run.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';
import type { PayoutInsertInput, PayoutInsertResult } from './payout.activities';

const { insertPayoutRow } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: 'write the payout and its available → in_transit entry',
});

export async function payoutCreationWorkflow(input: PayoutInsertInput): Promise<PayoutInsertResult> {
  return insertPayoutRow(input);
}
