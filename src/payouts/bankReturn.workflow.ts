/**
 * A return's request written by a worker, since only the workers write `bank_returns` and the ledger
 * (docs/architecture.md, "One writer per aggregate"; docs/bank.md, "Returns"). The API (or the
 * operator's command) runs it, workflow id `bank-return-<credit id>-<credit version>`, and awaits it.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';
import type { BankReturnInput, BankReturnResult } from './bankReturn.rules';

const { requestBankReturn } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: 'mark the credit returned and its return pending for the next pain.001',
});

export async function bankReturnWorkflow(input: BankReturnInput): Promise<BankReturnResult> {
  return requestBankReturn(input);
}

const { assignBankCredit } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: "hand the operator's credit to the payment's account",
});

/** An operator's credit handed to the account of the payment it is applied to (`npm run bank-files -- apply`), ids only. */
export async function bankCreditAssignmentWorkflow(input: { creditId: string; accountId: string; paymentId: string }): Promise<boolean> {
  return assignBankCredit(input);
}
