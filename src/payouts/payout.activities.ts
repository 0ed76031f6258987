/**
 * A payout's activities (docs/payouts.md): each step written to PostgreSQL (row, ledger entry, bank
 * account, deliveries, in one transaction: src/payouts/payouts.repository.ts), then the series of the deliveries its
 * event owes started on the one road (docs/webhooks.md). Idempotent: a retry after the commit
 * writes nothing twice and starts what was not started.
 */
import { ApplicationFailure } from '@temporalio/common';
import { PAYOUT_STEP_REFUSED } from '../platform/failures.rules';
import { type PayoutAction, type PayoutFailureCode, type PayoutStatus } from './payout.rules';
import {
  applyPayoutStep,
  availableBalance,
  insertPayout,
  isNegativeBalance,
  payoutById,
  recordPayoutClock,
  unattemptedPayoutDeliveries,
} from './payouts.repository';
import type { Scope } from '../tenants/tenancy.rules';
import type { ActivityResourcesWithClient } from '../platform/activityResources';
import { startRecordedDeliveries } from '../webhooks/firstSeries.activities';

export interface PayoutStepInput {
  payoutId: string;
  action: PayoutAction;
  failureCode?: PayoutFailureCode | null;
  /** When the step happened (ms since epoch, the workflow's time). */
  at: number;
}

/** A payout to write, as the API checked it (src/payouts/payouts.service.ts). */
export interface PayoutInsertInput {
  id: string;
  scope: Scope;
  recipientId: string;
  bankAccountId: string;
  amount: bigint;
  currency: string;
  exponent: number;
  endToEndId: string;
  /** Its creation time (ms since epoch). */
  atMs: number;
}

/** Written (or written before: a retry), or refused because `available` no longer covers it. */
export type PayoutInsertResult = { ok: true } | { ok: false; available: bigint };

export function payoutActivities({ db, config, temporal }: ActivityResourcesWithClient) {
  async function startDeliveries(payoutId: string): Promise<number> {
    const payout = await payoutById(db, payoutId);
    if (!payout) return 0;
    const scope = { accountId: payout.account_id, livemode: payout.livemode };
    const deliveries = await unattemptedPayoutDeliveries(db, payoutId);
    // An event's first series (docs/webhooks.md, "One road"): a delivery whose workflow ran is left as it is.
    await startRecordedDeliveries(temporal, config, scope, deliveries);
    return deliveries.length;
  }

  return {
    /**
     * The payout's row, its entry and its `payout.created` deliveries in one transaction. PostgreSQL
     * refuses the entry when another payout took the money since the API's check (the balance
     * constraint): answered as a refusal, with what is available now.
     */
    async insertPayoutRow(input: PayoutInsertInput): Promise<PayoutInsertResult> {
      const { atMs, ...payout } = input;
      try {
        await insertPayout(db, { ...payout, at: new Date(atMs) });
        return { ok: true };
      } catch (err) {
        if (!isNegativeBalance(err)) throw err;
        return { ok: false, available: await availableBalance(db, input.recipientId, input.currency, input.exponent) };
      }
    },

    /** The creation's deliveries (recorded with the payout by its creation's activity), started. */
    async publishPayoutCreated(payoutId: string): Promise<{ deliveries: number }> {
      return { deliveries: await startDeliveries(payoutId) };
    },

    /** One step: the row, its ledger entry and its deliveries, then their series. */
    async payoutStep(input: PayoutStepInput): Promise<{ status: PayoutStatus; version: number; applied: boolean }> {
      const result = await applyPayoutStep(
        db,
        input.payoutId,
        { action: input.action, failureCode: input.failureCode },
        new Date(input.at),
      );
      if (!result.ok) throw ApplicationFailure.nonRetryable(result.message, PAYOUT_STEP_REFUSED);
      await startDeliveries(input.payoutId);
      return { status: result.row.status, version: result.row.version, applied: result.applied };
    },

    /** A test payout's clock moved: shown on its row (its steps come from the workflow). */
    async recordPayoutClock(input: { payoutId: string; offsetSeconds: number }): Promise<void> {
      await recordPayoutClock(db, input.payoutId, input.offsetSeconds);
    },
  };
}
