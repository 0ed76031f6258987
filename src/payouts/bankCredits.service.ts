/**
 * Credits booked at the custody account (docs/bank.md, "Funding by bank transfer", "Unapplied
 * credits"): each entry taken once (by its entry key), matched by the ISO 11649 reference it carries
 * to a payment of the same mode and currency: a `bank_transfer` payment pending_deposit takes it (its
 * workflow's `receiveFunds`, once per credit), an `api` payment's settlement is recorded; anything
 * else, and the excess of an overpayment, is an unapplied credit of the payment's account, or the
 * operator's when it names no payment. Test mode's simulated transfers take the same road.
 */
import { createHash } from 'node:crypto';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ulid } from 'ulid';
import { bankCreditAssignmentWorkflow, bankReturnWorkflow, simulatedTransferWorkflow } from '../platform/workflows.workflow';
import { withinDeadline } from '../platform/lib/temporalDeadline';
import type { PaymentsDeps } from '../payments/paymentRun.service';
import { receiveFundsUpdate } from '../payments/payment.messages';
import type { Scope } from '../tenants/tenancy.rules';
import { type BankCreditRow, type CreditFilter, findCredit, listCredits, listOperatorCredits, moveCredit } from './bankCredits.repository';
import { findPayment } from '../payments/payments.repository';
import { type Announce, type Booked, type Fund } from './bankCreditBooking.repository';
import { recordBankCreditEvent } from './bankCreditEvents.repository';
import { deliveries } from '../webhooks/deliveries.service';
import type { BankReturnResult } from './bankReturn.rules';
import { type BankCreditView, bankCreditView } from './bankCredit.view';
import {
  BankCreditNotReturnable,
  BankCreditNotUnapplied,
  InvalidInput,
  InvalidTransition,
  NotFound,
  pageOrRefuse,
} from '../platform/useCaseErrors';

export function bankCreditsService(deps: PaymentsDeps) {
  const { db, temporal, config } = deps;
  const { startRecorded } = deliveries(deps);
  /** A credit's event's deliveries, started on the one road (docs/webhooks.md). */
  const announce: Announce = (owed) => startRecorded(owed.scope, owed.deliveries);

  /**
   * Return a credit of `owner` (an account and mode, or the operator's: null) through a worker's short
   * workflow (docs/bank.md, "Returns"), awaited; only ids travel, never the debtor. One run per credit
   * version: a retried request joins the run under way, and `returnId` (the Idempotency-Key's resource id
   * when given) makes its write once.
   */
  async function requestReturn(
    owner: { accountId: string | null; livemode: boolean },
    credit: BankCreditRow,
    resourceId?: string,
  ): Promise<BankCreditView> {
    // Hashed when given: whatever shape a resource id has, the EndToEndId made of it stays within 35 characters of the SEPA set.
    const returnId = resourceId
      ? `rtn_${createHash('sha256').update(resourceId).digest('hex').slice(0, 26).toUpperCase()}`
      : `rtn_${ulid()}`;
    const done: BankReturnResult = await temporal.workflow.execute(bankReturnWorkflow, {
      workflowId: `bank-return-${credit.id}-${credit.version}`,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      args: [{ returnId, creditId: credit.id, ...owner }],
    });
    switch (done.outcome) {
      case 'returned':
        return bankCreditView((await findCredit(db, credit.id))!);
      case 'not_found':
        throw new NotFound('bank credit');
      case 'not_unapplied':
        throw new BankCreditNotUnapplied(credit.id, done.status);
      case 'not_returnable':
        throw new BankCreditNotReturnable(credit.id, done.why);
    }
  }

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
     * Test mode's simulated transfer (`POST /api/v1/test_helpers/bank_transfers`): a credit booked today
     * with `reference`, through the same matching, by a worker (only the workers write the ledger:
     * src/payouts/simulatedTransfer.workflow.ts); one per request (its idempotency resource id).
     */
    async simulateTransfer(
      call: { principal: Scope & { actor?: string }; resourceId?: string; requestId: string },
      body: { reference: string; amountMinor: bigint; currency: string },
    ): Promise<Booked> {
      if (call.principal.livemode) throw new InvalidInput([{ field: 'reference', message: 'a simulated transfer is for test mode only' }]);
      const entryKey = `test:${call.principal.accountId}:${call.resourceId ?? call.requestId}`;
      const result = await withinDeadline(temporal, () =>
        temporal.workflow.execute(simulatedTransferWorkflow, {
          workflowId: `bank-transfer-${createHash('sha256').update(entryKey).digest('hex').slice(0, 32)}`,
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          // A retried request joins the run under way, or runs again once it closed (the booking is idempotent by entry key).
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          args: [
            {
              entryKey,
              accountId: call.principal.accountId,
              amountMinor: body.amountMinor,
              currency: body.currency,
              reference: body.reference,
              bookedOn: new Date().toISOString().slice(0, 10),
            },
          ],
        }),
      );
      const credits = await Promise.all(result.creditIds.map((id) => findCredit(db, id)));
      return { credits: credits.filter((c): c is BankCreditRow => c !== undefined), again: result.again };
    },

    /**
     * Apply an unapplied credit of the account to a `bank_transfer` payment of the same account, mode
     * and currency, pending its deposit and lacking at least the credit (docs/bank.md, "Unapplied
     * credits"): the payment's `receiveFunds`, its money from the credit's own ledger account.
     */
    async apply(call: { principal: Scope; requestId: string }, creditId: string, paymentId: string): Promise<BankCreditRow> {
      const scope: Scope = { accountId: call.principal.accountId, livemode: call.principal.livemode };
      const credit = await findCredit(db, creditId);
      if (!credit || credit.account_id !== scope.accountId || credit.livemode !== scope.livemode) throw new NotFound('bank credit');
      if (credit.status !== 'unapplied') throw new BankCreditNotUnapplied(credit.id, credit.status);
      const payment = await findPayment(db, scope, paymentId);
      if (!payment) throw new InvalidInput([{ field: 'payment', message: `no payment ${paymentId} in this account and mode` }]);
      if (payment.currency !== credit.currency) {
        throw new InvalidInput([{ field: 'payment', message: `the payment is in ${payment.currency}, the credit in ${credit.currency}` }]);
      }
      const lacking = payment.amountMinor - (payment.amountReceivedMinor ?? 0n);
      if (payment.funding !== 'bank_transfer' || payment.status !== 'pending_deposit' || credit.amount_minor > lacking) {
        throw new InvalidTransition(
          payment.status,
          `payment ${payment.id} cannot take bank credit ${credit.id}: only a bank_transfer payment pending_deposit that lacks at least the credit's amount can`,
        );
      }
      // Claimed first: of two applies racing for the credit, one moves it.
      const claimed = await moveCredit(db, credit.id, 'unapplied', 'applied', payment.id);
      if (!claimed) throw new BankCreditNotUnapplied(credit.id, 'applied');
      const outcome = await fund(payment.id, {
        creditId: credit.id,
        amountMinor: credit.amount_minor,
        bookedOn: credit.booked_on,
        bankEntryRef: credit.bank_entry_ref,
        applied: true,
      });
      if (outcome === 'refused') {
        await moveCredit(db, credit.id, 'applied', 'unapplied');
        throw new InvalidTransition(payment.status, `payment ${payment.id} could not take bank credit ${credit.id}: its status changed`);
      }
      // Recorded once the payment took it (a refusal moves it back, and no event was sent).
      await announce(await recordBankCreditEvent(db, claimed, 'bank_credit.applied'));
      return claimed;
    },

    /**
     * Return an unapplied credit of the account to the debtor account its entry named: written in the
     * next pain.001 (live) or paid at once by the simulated bank (test mode); docs/bank.md, "Returns".
     */
    async returnCredit(call: { principal: Scope; resourceId?: string }, creditId: string): Promise<BankCreditView> {
      const scope = { accountId: call.principal.accountId, livemode: call.principal.livemode };
      const credit = await findCredit(db, creditId);
      if (!credit || credit.account_id !== scope.accountId || credit.livemode !== scope.livemode) throw new NotFound('bank credit');
      if (credit.status !== 'unapplied') throw new BankCreditNotUnapplied(credit.id, credit.status);
      return requestReturn(scope, credit, call.resourceId);
    },

    /** The operator's return of its own credit (one naming no payment): `npm run bank-files -- return ID`. */
    async returnOperatorCredit(creditId: string): Promise<BankCreditView> {
      const credit = await findCredit(db, creditId);
      if (!credit || credit.account_id !== null) throw new NotFound('bank credit');
      if (credit.status !== 'unapplied') throw new BankCreditNotUnapplied(credit.id, credit.status);
      return requestReturn({ accountId: null, livemode: credit.livemode }, credit);
    },

    /**
     * The operator's credit (one naming no payment) applied to a payment funded by transfer
     * (`npm run bank-files -- apply ID PAYMENT`): checked as a tenant's apply is, handed to the payment's
     * account by a worker (its ledger entries), then applied as that account's own.
     */
    async applyOperatorCredit(creditId: string, paymentId: string): Promise<BankCreditRow> {
      const credit = await findCredit(db, creditId);
      if (!credit || credit.account_id !== null) throw new NotFound('bank credit');
      if (credit.status !== 'unapplied') throw new BankCreditNotUnapplied(credit.id, credit.status);
      const row = await db('payments').where({ id: paymentId, livemode: credit.livemode }).first('account_id');
      if (!row) throw new InvalidInput([{ field: 'payment', message: `no payment ${paymentId} in this mode` }]);
      const scope: Scope = { accountId: row.account_id as string, livemode: credit.livemode };
      const payment = (await findPayment(db, scope, paymentId))!;
      const lacking = payment.amountMinor - (payment.amountReceivedMinor ?? 0n);
      if (
        payment.currency !== credit.currency ||
        payment.funding !== 'bank_transfer' ||
        payment.status !== 'pending_deposit' ||
        credit.amount_minor > lacking
      ) {
        throw new InvalidTransition(
          payment.status,
          `payment ${payment.id} cannot take bank credit ${credit.id}: only a bank_transfer payment pending_deposit in its currency that lacks at least the credit's amount can`,
        );
      }
      const assigned = await temporal.workflow.execute(bankCreditAssignmentWorkflow, {
        workflowId: `bank-credit-assign-${credit.id}`,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        args: [{ creditId: credit.id, accountId: scope.accountId, paymentId: payment.id }],
      });
      if (!assigned) throw new BankCreditNotUnapplied(credit.id, 'assigned');
      return this.apply({ principal: scope, requestId: `cli-apply-${credit.id}` }, credit.id, payment.id);
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
