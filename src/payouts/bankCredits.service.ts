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
import { findPaymentByFundingReference } from '../payments/payments.repository';
import { normalReference } from '../payments/fundingReference.rules';
import { receiveFundsUpdate } from '../payments/payment.messages';
import { withPersonal } from '../payments/personalData.rules';
import { projectReadModel } from '../payments/projection.repository';
import type { PaymentRecord } from '../payments/paymentRecord.rules';
import type { Scope } from '../tenants/tenancy.rules';
import {
  type BankCreditRow,
  type CreditFilter,
  type NewBankCredit,
  claimCredit,
  listCredits,
  listOperatorCredits,
  moveCredit,
  postCreditReceived,
  postSettlement,
  setCreditAmount,
} from './bankCredits.repository';
import { InvalidInput, pageOrRefuse } from '../platform/useCaseErrors';

/** What booking one entry did: the credit rows it left (the applied part, and any unapplied one). */
export interface Booked {
  credits: BankCreditRow[];
  /** The entry was taken before (the same entry key): nothing changed now. */
  again: boolean;
}

export function bankCreditsService(deps: PaymentsDeps) {
  const { db, temporal, config, logger } = deps;

  /** A credit that funds nothing: unapplied, its money in its own ledger account. */
  async function unapplied(c: NewBankCredit, owner: { accountId: string | null; paymentId: string | null }): Promise<Booked> {
    const { row, claimed } = await claimCredit(db, c, { ...owner, status: 'unapplied' });
    if (claimed) await postCreditReceived(db, row, new Date());
    return { credits: [row], again: !claimed };
  }

  /** A `bank_transfer` payment pending_deposit takes the credit; refused (closed, past its deadline), it is unapplied. */
  async function fund(c: NewBankCredit, payment: PaymentRecord): Promise<Booked> {
    const { row, claimed } = await claimCredit(db, c, { accountId: payment.accountId, paymentId: payment.id, status: 'applied' });
    if (!claimed && row.status !== 'applied') return { credits: [row], again: true };
    try {
      // The credit's id is the update's: Temporal runs it once per run, and the workflow takes a credit once.
      const outcome = await temporal.workflow.getHandle(payment.id).executeUpdate(receiveFundsUpdate, {
        args: [{ creditId: row.id, amountMinor: c.amountMinor, bookedOn: c.bookedOn, bankEntryRef: c.bankEntryRef }],
        updateId: row.id,
      });
      if (outcome.entry) {
        // A payment pending its deposit has no dispute: its record is its details.
        const { disputes: _none, ...details } = withPersonal(outcome.payment, payment);
        await projectReadModel(db, details, outcome.entry, reasonHashKey(config)).catch((err: unknown) =>
          logger.warn({ payment_id: payment.id, err }, 'read model write failed; the workflow will project it'),
        );
      }
      const excess = c.amountMinor - outcome.appliedMinor;
      if (excess <= 0n) return { credits: [row], again: !claimed };
      // The excess of an overpayment: an unapplied credit of the payment's account, its own entry of the bank's.
      await setCreditAmount(db, row.id, outcome.appliedMinor);
      const rest = await unapplied(
        { ...c, entryKey: `${c.entryKey}|excess`, amountMinor: excess },
        { accountId: payment.accountId, paymentId: payment.id },
      );
      return { credits: [{ ...row, amount_minor: outcome.appliedMinor }, ...rest.credits], again: !claimed };
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError) && !(err instanceof WorkflowNotFoundError)) throw err;
      // The payment could not take it (closed, past its deadline): the credit is its account's, unapplied.
      const moved = (await moveCredit(db, row.id, 'applied', 'unapplied')) ?? row;
      await postCreditReceived(db, moved, new Date());
      return { credits: [moved], again: !claimed };
    }
  }

  return {
    /**
     * Book one credit of the bank (a file's entry, or test mode's simulated transfer), matched by its
     * reference. `accountId`: test mode's caller, whose own payments alone its transfer may fund.
     */
    async book(c: NewBankCredit, accountId?: string): Promise<Booked> {
      const reference = c.reference === null ? undefined : normalReference(c.reference);
      const found = reference === undefined ? undefined : await findPaymentByFundingReference(db, reference, c.livemode);
      const payment = found && (accountId === undefined || found.accountId === accountId) ? found : undefined;
      if (!payment) return unapplied({ ...c, reference: reference ?? c.reference }, { accountId: accountId ?? null, paymentId: null });
      const credit = { ...c, reference: reference! };
      const owner = { accountId: payment.accountId, paymentId: payment.id };
      if (payment.currency !== c.currency) return unapplied(credit, owner);
      if (payment.funding === 'bank_transfer' && payment.status === 'pending_deposit') return fund(credit, payment);
      if (payment.funding !== 'bank_transfer') {
        // An api payment's settlement from the platform, carrying its reference: its deposit is now seen at the bank.
        const { row, claimed } = await claimCredit(db, credit, { ...owner, status: 'applied' });
        if (claimed) await postSettlement(db, row, payment.id, new Date());
        return { credits: [row], again: !claimed };
      }
      return unapplied(credit, owner);
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
