/**
 * The payouts' use cases (docs/payouts.md): create one (checked in the contract's order, its money
 * moved available → in_transit with its row by a worker, then its workflow started), read and list them, cancel
 * one while pending, and move a test payout's clock.
 */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, type SearchAttributePair } from '@temporalio/common';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { Config } from '../platform/config';
import { isPayableBankAccount } from './bankAccounts.rules';
import { tenantPriority } from '../webhooks/deliverySeries.rules';
import { INVALID_PAYOUT_TRANSITION } from '../platform/failures.rules';
import { minorUnits, toMajor, toMinor } from '../ledger/money.rules';
import { type PayoutCreationRefusal, type PayoutStatus, checkPayoutCreation, endToEndIdOf } from './payout.rules';
import { payoutSummary } from './payoutSummary.rules';
import { AccountIdKey, LivemodeKey, type RecordKind, RecordKindKey } from '../platform/searchAttributes.rules';
import { type Scope, scopeOf } from '../tenants/tenancy.rules';
import { listBankAccounts } from './bankAccounts.repository';
import { type PayoutFilter, type PayoutRow, availableBalance, findPayout, listPayouts } from './payouts.repository';
import { findRecipient } from '../recipients/recipients.repository';
import type { RecipientState } from '../recipients/recipients.rules';
import { notErased } from '../recipients/recipients.service';
import {
  type PayoutRunState,
  advancePayoutClockUpdate,
  cancelPayoutUpdate,
  payoutCreationWorkflow,
  payoutWorkflow,
} from '../platform/workflows.workflow';
import { withinDeadline } from '../platform/lib/temporalDeadline';
import { InvalidInput, NotFound, PayoutRefused, isClosedRun, pageOrRefuse } from '../platform/useCaseErrors';
import type { Call } from '../payments/paymentRun.service';

export interface NewPayoutInput {
  recipient: string;
  currency: string;
  /** Major units; absent: everything available. */
  amount?: number | undefined;
  bank_account?: string | undefined;
}

interface PayoutsDeps {
  db: Knex;
  temporal: Client;
  config: Config;
}

/**
 * A creation's refusal as the error the API maps: a bank account not the recipient's is bad input on
 * its field; payouts not enabled name the recipient's verification status, what is past due, and the
 * route that changes them (docs/payouts.md, "Creating a payout").
 */
function refusalError(
  r: PayoutCreationRefusal,
  recipient: string,
  currency: string,
  exponent: number,
  verification?: RecipientState['verification'],
): Error {
  switch (r.code) {
    case 'payouts_not_enabled': {
      const status = verification?.status ?? 'unverified';
      const pastDue = verification?.requirements.past_due ?? [];
      const route = `POST /api/v1/recipients/${recipient}/verification`;
      const why =
        pastDue.length > 0 ? `its verification is ${status} with ${pastDue.join(', ')} past due` : `its verification is ${status}`;
      return new PayoutRefused(
        r.code,
        `the recipient's payouts are not enabled: ${why}; they are enabled once it is verified with nothing past due, as reported by ${route}`,
        { recipient, currency, verification_status: status, past_due: pastDue, route },
      );
    }
    case 'unknown_bank_account':
      return new InvalidInput([{ field: 'bank_account', message: r.message }]);
    case 'insufficient_available_balance':
      return new PayoutRefused(r.code, r.message, { recipient, currency, available: toMajor(r.available, currency, exponent) });
    default:
      return new PayoutRefused(r.code, r.message, { recipient, currency });
  }
}

export function payoutsService({ db, temporal, config }: PayoutsDeps) {
  async function load(scope: Scope, id: string): Promise<PayoutRow> {
    const row = await findPayout(db, scope, id);
    if (!row) throw new NotFound('payout');
    return row;
  }

  /** The payout's one run (workflow id = payout id), never a second, even after the first closed. */
  async function startRun(call: Call, row: PayoutRow, last4: string): Promise<void> {
    const payout: PayoutRunState = {
      id: row.id,
      accountId: row.account_id,
      livemode: row.livemode,
      recipientId: row.recipient_id,
      bankAccountId: row.bank_account_id,
      amountMinor: row.amount,
      amountExponent: row.amount_exponent,
      currency: row.currency,
      status: row.status,
      failureCode: row.failure_code,
      last4,
      createdAtMs: row.created_at.getTime(),
      version: row.version,
    };
    const scope = { accountId: row.account_id, livemode: row.livemode };
    try {
      await withinDeadline(
        temporal,
        () =>
          temporal.workflow.start(payoutWorkflow, {
            workflowId: row.id,
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowTaskTimeout: '5 seconds',
            priority: tenantPriority(scope),
            typedSearchAttributes: [
              { key: RecordKindKey, value: 'payout' satisfies RecordKind },
              { key: AccountIdKey, value: row.account_id },
              { key: LivemodeKey, value: row.livemode },
            ] as SearchAttributePair[],
            // Ids, amounts and the last four digits only: personal data never enters Temporal (docs/architecture.md).
            staticSummary: `Payout ${payoutSummary(payout)}`,
            staticDetails: `recipient ${row.recipient_id}, account ${row.account_id}, ${row.livemode ? 'live' : 'test'} mode`,
            args: [{ payout }],
          }),
        call.deadline,
      );
    } catch (err) {
      // Its run started before (a retried request): one run per payout.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  return {
    async create(call: Call, input: NewPayoutInput): Promise<PayoutRow> {
      const scope = scopeOf(call.principal);
      const id = `po_${call.resourceId ?? ulid()}`;
      const recipient = await findRecipient(db, scope, input.recipient);
      if (!recipient) throw new InvalidInput([{ field: 'recipient', message: 'no such recipient in this account and mode' }]);
      notErased(recipient, 'recipient');
      const accounts = await listBankAccounts(db, scope, recipient.id);
      const lastFourOf = (bankAccountId: string) => accounts.find((b) => b.id === bankAccountId)?.last4 ?? '';
      const earlier = await findPayout(db, scope, id);
      if (earlier) {
        // A retry of a request whose payout was written: its run, if not started then, starts now.
        await startRun(call, earlier, lastFourOf(earlier.bank_account_id));
        return earlier;
      }
      const currency = input.currency;
      const exponent = minorUnits(currency);
      let amount: bigint | undefined;
      if (input.amount !== undefined) {
        const parsed = toMinor(input.amount, currency);
        if (!parsed.ok) throw new InvalidInput([{ field: 'amount', message: parsed.message }]);
        amount = parsed.minor;
      }
      const available = await availableBalance(db, recipient.id, currency, exponent);
      const check = checkPayoutCreation({
        payoutsEnabled: recipient.payoutsEnabled,
        currency,
        amount,
        available,
        bankAccounts: accounts.map((b) => ({
          id: b.id,
          currency: b.currency,
          payable: isPayableBankAccount(b.status),
          defaultForCurrency: b.default_for_currency,
        })),
        bankAccountId: input.bank_account,
      });
      if (!check.ok) throw refusalError(check.refusal, recipient.id, currency, exponent, recipient.verification);
      // Written by a worker (docs/architecture.md, "One writer per aggregate"), awaited: the row and its entry are committed before the run starts.
      const written = await withinDeadline(
        temporal,
        () =>
          temporal.workflow.execute(payoutCreationWorkflow, {
            workflowId: `payout-create-${id}`,
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            // A retried request joins the run under way, or runs again once it closed (the write is idempotent by payout id).
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
            workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
            args: [
              {
                id,
                scope,
                recipientId: recipient.id,
                bankAccountId: check.bankAccountId,
                amount: check.amount,
                currency,
                exponent,
                endToEndId: endToEndIdOf(id),
                atMs: Date.now(),
              },
            ],
          }),
        call.deadline,
      );
      if (!written.ok) {
        // Another payout took the money between the check and the write: PostgreSQL refused this one.
        throw refusalError(
          {
            code: 'insufficient_available_balance',
            message: `the recipient's available balance in ${currency} does not cover the payout`,
            available: written.available,
          },
          recipient.id,
          currency,
          exponent,
        );
      }
      const row = await load(scope, id);
      await startRun(call, row, lastFourOf(row.bank_account_id));
      return row;
    },

    get: load,

    async list(scope: Scope, filter: PayoutFilter) {
      const page = pageOrRefuse(await listPayouts(db, scope, filter), 'not a payout of this account and mode');
      return { data: page.rows, hasMore: page.hasMore };
    },

    /** Only while pending: the workflow takes the step (its state first), then its entry moves the money back to available. */
    async cancel(call: Call, id: string): Promise<PayoutRow> {
      const scope = scopeOf(call.principal);
      const current = await load(scope, id);
      const notPending = (status: PayoutStatus, message = `cannot cancel a payout whose status is ${status}`) =>
        new PayoutRefused('payout_not_pending', message, { status });
      if (current.status !== 'pending') throw notPending(current.status);
      try {
        await withinDeadline(
          temporal,
          () =>
            temporal.workflow.getHandle(id).executeUpdate(cancelPayoutUpdate, {
              args: [{ actor: call.principal.actor, requestId: call.requestId }],
              updateId: call.resourceId,
            }),
          call.deadline,
        );
      } catch (err) {
        const cause = err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause : undefined;
        if (cause?.type === INVALID_PAYOUT_TRANSITION) {
          const [status] = (cause.details ?? []) as [PayoutStatus];
          throw notPending(status, cause.message);
        }
        if (!isClosedRun(err)) throw err;
      }
      const after = await load(scope, id);
      if (after.status !== 'canceled') throw notPending(after.status);
      return after;
    },

    /** Test clocks: a test payout's clock moves forward and the simulated bank's due steps are taken. A live payout is not found here. */
    async advanceClock(call: Call, id: string, seconds: number): Promise<PayoutRow> {
      if (call.principal.livemode) throw new NotFound('test-mode payout');
      const scope = scopeOf(call.principal);
      await load(scope, id);
      try {
        await withinDeadline(
          temporal,
          () => temporal.workflow.getHandle(id).executeUpdate(advancePayoutClockUpdate, { args: [{ seconds }], updateId: call.resourceId }),
          call.deadline,
        );
      } catch (err) {
        // Its story is over (paid, failed, canceled, returned): nothing more comes, whatever the clock says.
        if (!isClosedRun(err)) throw err;
      }
      return load(scope, id);
    },
  };
}

export type PayoutsService = ReturnType<typeof payoutsService>;
