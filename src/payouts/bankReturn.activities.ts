/**
 * A return requested by a tenant (`POST /api/v1/bank_credits/:id/return`) or by the operator
 * (`npm run bank-files -- return ID`), carried out by a worker: `bank_returns` is written by the
 * workers only, and test mode's simulated bank pays at once, in the ledger (docs/bank.md, "Returns").
 * The input names ids only: the debtor stays in PostgreSQL, never in Temporal.
 */
import type { ActivityResourcesWithClient } from '../platform/activityResources';
import { assignOperatorCredit, requestCreditReturn } from './bankReturns.repository';
import { startRecordedDeliveries } from '../webhooks/firstSeries.activities';
import type { BankReturnInput, BankReturnResult } from './bankReturn.rules';

export function bankReturnActivities({ db, temporal, config }: ActivityResourcesWithClient) {
  return {
    async requestBankReturn(input: BankReturnInput): Promise<BankReturnResult> {
      const done = await requestCreditReturn(db, input);
      if (done.outcome !== 'returned') return done;
      await startRecordedDeliveries(temporal, config, done.owed.scope, done.owed.deliveries);
      return { outcome: 'returned', returnId: done.ret.id, status: done.ret.status };
    },

    /** An operator's credit handed to a payment's account before it is applied (ledger entries: a worker's to write). */
    async assignBankCredit(input: { creditId: string; accountId: string; paymentId: string }): Promise<boolean> {
      return assignOperatorCredit(db, input.creditId, input);
    },
  };
}
