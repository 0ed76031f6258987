/**
 * Test mode's simulated bank transfer (`POST /api/v1/test_helpers/bank_transfers`, docs/bank.md)
 * booked by a worker, as the inbox books the bank's: only the workers write the ledger (docs/architecture.md,
 * "One writer per aggregate"). The API runs it (workflow id `bank-transfer-<hash of the entry key>`)
 * and awaits it; a retried request joins the run under way, and the booking is idempotent by its entry key.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';
import type { SimulatedTransferInput, SimulatedTransferResult } from './bankInbox.activities';

const { bookSimulatedTransfer } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: 'book a simulated bank transfer',
});

export async function simulatedTransferWorkflow(input: SimulatedTransferInput): Promise<SimulatedTransferResult> {
  return bookSimulatedTransfer(input);
}
