/** The worker's Temporal Schedules, created idempotently when it starts: the periodic ledger check (docs/money.md), live payouts' files (docs/payouts.md), the bank inbox (docs/bank.md). */
import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Workflow } from '@temporalio/client';
import { type RecordKind, RecordKindKey } from '../domain/searchAttributes';
import type { Logger } from '../lib/logger';
import { ledgerVerifyWorkflow } from '../workflows/ledgerVerify';
import { bankInboxWorkflow } from '../workflows/bankInbox';
import { payoutBatchWorkflow } from '../workflows/payout';

interface ScheduleOptions {
  taskQueue: string;
  intervalMs: number;
  logger: Logger;
}

/**
 * A schedule starting `workflowType` every `intervalMs` on `taskQueue`, created once: another worker
 * (or an earlier start) that made it already leaves one schedule for them all. A run still going
 * when the next is due makes the next skipped, never stacked.
 */
async function ensureSchedule(
  client: Client,
  opts: ScheduleOptions & { scheduleId: string; workflowType: Workflow; workflowId: string; kind: RecordKind; purpose: string },
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: opts.scheduleId,
      spec: { intervals: [{ every: opts.intervalMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: opts.workflowType,
        taskQueue: opts.taskQueue,
        workflowId: opts.workflowId,
        // Kept out of the operators' payments list (docs/operations.md).
        typedSearchAttributes: [{ key: RecordKindKey, value: opts.kind }],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { purpose: opts.purpose },
    });
    opts.logger.info({ schedule_id: opts.scheduleId }, `${opts.kind} schedule created`);
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** One schedule per task queue, so that stacks sharing a Temporal namespace (tests) each check with their own worker. */
export const ledgerScheduleId = (taskQueue: string) => `ledger-verify:${taskQueue}`;

export function ensureLedgerSchedule(client: Client, opts: ScheduleOptions): Promise<void> {
  return ensureSchedule(client, {
    ...opts,
    scheduleId: ledgerScheduleId(opts.taskQueue),
    workflowType: ledgerVerifyWorkflow,
    workflowId: `ledger-verify-${opts.taskQueue}`,
    kind: 'check',
    purpose: 'checks the ledger invariants of docs/money.md',
  });
}

export const payoutBatchScheduleId = (taskQueue: string) => `payout-batch:${taskQueue}`;

/**
 * Pending live payouts written as one pain.001 file every PAYOUT_BATCH_INTERVAL (docs/payouts.md,
 * "Live mode"); a batch still running when the next is due makes it skipped, so two files never
 * carry one payout.
 */
export function ensurePayoutBatchSchedule(client: Client, opts: ScheduleOptions): Promise<void> {
  return ensureSchedule(client, {
    ...opts,
    scheduleId: payoutBatchScheduleId(opts.taskQueue),
    workflowType: payoutBatchWorkflow,
    workflowId: `payout-batch-${opts.taskQueue}`,
    kind: 'batch',
    purpose: 'writes pending live payouts as pain.001 files into PAYOUT_OUTBOX_DIR',
  });
}

export const bankInboxScheduleId = (taskQueue: string) => `bank-inbox:${taskQueue}`;

/**
 * The bank's files taken from BANK_INBOX_DIR every BANK_INBOX_INTERVAL (docs/bank.md, "The inbox");
 * a run still going when the next is due makes it skipped, so one taker reads the inbox at a time.
 */
export function ensureBankInboxSchedule(client: Client, opts: ScheduleOptions): Promise<void> {
  return ensureSchedule(client, {
    ...opts,
    scheduleId: bankInboxScheduleId(opts.taskQueue),
    workflowType: bankInboxWorkflow,
    workflowId: `bank-inbox-${opts.taskQueue}`,
    kind: 'batch',
    purpose: "takes the bank's files from BANK_INBOX_DIR, each once, into taken/ or rejected/",
  });
}
