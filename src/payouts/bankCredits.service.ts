/**
 * Credits booked at the custody account (docs/bank.md, "Funding by bank transfer", "Unapplied
 * credits"): each entry taken once (by its entry key), matched by the ISO 11649 reference it carries
 * to a payment of the same mode and currency: a `bank_transfer` payment pending_deposit takes it (its
 * workflow's `receiveFunds`, once per credit), an `api` payment's settlement is recorded; anything
 * else, and the excess of an overpayment, is an unapplied credit of the payment's account, or the
 * operator's when it names no payment. Test mode's simulated transfers take the same road.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { reasonHashKey } from '../platform/config';
import { minorUnits } from '../ledger/money.rules';
import type { PaymentsDeps } from '../payments/paymentRun.service';
import { receiveFundsUpdate } from '../payments/payment.messages';
import type { Scope } from '../tenants/tenancy.rules';
import { type CreditFilter, type NewBankCredit, listCredits, listOperatorCredits } from './bankCredits.repository';
import { type Booked, type Fund, bookCredit } from './bankCreditBooking.repository';
import { InvalidInput, pageOrRefuse } from '../platform/useCaseErrors';

export function bankCreditsService(deps: PaymentsDeps) {
  const { db, temporal, config, logger } = deps;

  /** The payment's `receiveFunds` update; refused by the payment (or its run closed): the credit is unapplied. */
  const fund: Fund = async (paymentId, msg) => {
    try {
      return await temporal.workflow.getHandle(paymentId).executeUpdate(receiveFundsUpdate, { args: [msg], updateId: msg.creditId });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return 'refused';
      throw err;
    }
  };

  return {
    /**
     * Book one credit of the bank (a file's entry, or test mode's simulated transfer), matched by its
     * reference. `accountId`: test mode's caller, whose own payments alone its transfer may fund.
     */
    async book(c: NewBankCredit, accountId?: string): Promise<Booked> {
      return bookCredit({ db, fund, reasonKey: reasonHashKey(config), logger }, c, accountId);
    },

    /**
     * Test mode's simulated transfer (`POST /api/v1/test_helpers/bank_transfers`): a credit booked today
     * with `reference`, through the same matching; one per request (its idempotency resource id).
     */
    async simulateTransfer(
      call: { principal: Scope & { actor?: string }; resourceId?: string; requestId: string },
      body: { reference: string; amountMinor: bigint; currency: string },
    ): Promise<Booked> {
      if (call.principal.livemode) throw new InvalidInput([{ field: 'reference', message: 'a simulated transfer is for test mode only' }]);
      const key = call.resourceId ?? call.requestId;
      return this.book(
        {
          entryKey: `test:${call.principal.accountId}:${key}`,
          livemode: false,
          amountMinor: body.amountMinor,
          currency: body.currency,
          exponent: minorUnits(body.currency),
          reference: body.reference,
          bookedOn: new Date().toISOString().slice(0, 10),
          bankEntryRef: null,
          bankFileId: null,
          debtor: null,
        },
        call.principal.accountId,
      );
    },

    /** A tenant's credits in its mode, newest first. */
    async list(scope: Scope, filter: CreditFilter) {
      return pageOrRefuse(await listCredits(db, scope, filter), 'no bank credit of this account and mode has that id');
    },

    /** The operator's credits, those naming no payment (`npm run bank-files -- credits`). */
    listOperator: () => listOperatorCredits(db),
  };
}

export type BankCreditsService = ReturnType<typeof bankCreditsService>;
