/** The worker's Temporal Schedules, created idempotently when it starts: the periodic ledger check (docs/money.md), live payouts' files (docs/payouts.md). */
import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { type RecordKind, RecordKindKey } from '../domain/searchAttributes';
import type { Logger } from '../lib/logger';
import { ledgerVerifyWorkflow } from '../workflows/ledgerVerify';
import { payoutBatchWorkflow } from '../workflows/payout';

/** One schedule per task queue, so that stacks sharing a Temporal namespace (tests) each check with their own worker. */
export const ledgerScheduleId = (taskQueue: string) => `ledger-verify:${taskQueue}`;

export async function ensureLedgerSchedule(client: Client, opts: { taskQueue: string; intervalMs: number; logger: Logger }): Promise<void> {
  const scheduleId = ledgerScheduleId(opts.taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: opts.intervalMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: ledgerVerifyWorkflow,
        taskQueue: opts.taskQueue,
        workflowId: `ledger-verify-${opts.taskQueue}`,
        // Kept out of the operators' payments list (docs/operations.md).
        typedSearchAttributes: [{ key: RecordKindKey, value: 'check' satisfies RecordKind }],
      },
      // A check still running when the next is due: the next is skipped, never stacked.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { purpose: 'checks the ledger invariants of docs/money.md' },
    });
    opts.logger.info({ schedule_id: scheduleId }, 'ledger verification schedule created');
  } catch (err) {
    // Another worker (or an earlier start) made it: one schedule for them all.
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

export const payoutBatchScheduleId = (taskQueue: string) => `payout-batch:${taskQueue}`;

/** Pending live payouts written as one pain.001 file every PAYOUT_BATCH_INTERVAL (docs/payouts.md, "Live mode"). */
export async function ensurePayoutBatchSchedule(
  client: Client,
  opts: { taskQueue: string; intervalMs: number; logger: Logger },
): Promise<void> {
  const scheduleId = payoutBatchScheduleId(opts.taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: opts.intervalMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: payoutBatchWorkflow,
        taskQueue: opts.taskQueue,
        workflowId: `payout-batch-${opts.taskQueue}`,
        typedSearchAttributes: [{ key: RecordKindKey, value: 'batch' satisfies RecordKind }],
      },
      // A batch still running when the next is due: the next is skipped, so two files never carry one payout.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { purpose: 'writes pending live payouts as pain.001 files into PAYOUT_OUTBOX_DIR' },
    });
    opts.logger.info({ schedule_id: scheduleId }, 'payout batch schedule created');
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
