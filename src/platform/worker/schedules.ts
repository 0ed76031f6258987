/** The worker's Temporal Schedules, created or brought to its settings when it starts: the periodic ledger check (docs/money.md), live payouts' files (docs/payouts.md), the bank inbox (docs/bank.md). */
import type { SearchAttributePair, TypedSearchAttributes } from '@temporalio/common';
import { type Client, ScheduleAlreadyRunning, type ScheduleDescription, ScheduleOverlapPolicy, type Workflow } from '@temporalio/client';
import { type RecordKind, RecordKindKey } from '../searchAttributes.rules';
import type { Logger } from '../lib/logger';
import { ledgerVerifyWorkflow } from '../../ledger/ledgerVerify.workflow';
import { bankInboxWorkflow } from '../../payouts/bankInbox.workflow';
import { payoutBatchWorkflow } from '../../payouts/payout.workflow';

interface ScheduleOptions {
  taskQueue: string;
  intervalMs: number;
  logger: Logger;
}

/**
 * A schedule starting `workflowType` every `intervalMs` on `taskQueue`: created when missing, and
 * brought to these settings when its interval or its action differs (a changed LEDGER_VERIFY_INTERVAL
 * or PAYOUT_BATCH_INTERVAL takes effect at the worker's next start, which logs it: docs/settings.md).
 * Another worker that made it already leaves one schedule for them all. A run still going when the
 * next is due makes the next skipped, never stacked. Returns the interval the schedule now runs (ms).
 */
async function ensureSchedule(
  client: Client,
  opts: ScheduleOptions & { scheduleId: string; workflowType: Workflow; workflowId: string; kind: RecordKind; purpose: string },
): Promise<number> {
  const spec = { intervals: [{ every: opts.intervalMs }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: opts.workflowType,
    taskQueue: opts.taskQueue,
    workflowId: opts.workflowId,
    // Kept out of the operators' payments list (docs/operations.md).
    typedSearchAttributes: [{ key: RecordKindKey, value: opts.kind }],
  };
  try {
    await client.schedule.create({
      scheduleId: opts.scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { purpose: opts.purpose },
    });
    opts.logger.info({ schedule_id: opts.scheduleId, interval_ms: opts.intervalMs }, `${opts.kind} schedule created`);
    return opts.intervalMs;
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(opts.scheduleId);
  const current = await handle.describe();
  const stale = staleParts(current, { ...opts, workflowTypeName: opts.workflowType.name });
  if (stale.length === 0) return opts.intervalMs;
  try {
    await handle.update((previous) => ({ ...previous, spec, action }));
  } catch (err) {
    // Another worker changed it meanwhile (its update's conflict token won): it runs what that one set.
    opts.logger.warn({ schedule_id: opts.scheduleId, err }, `${opts.kind} schedule could not be updated to this worker's settings`);
    const now = (await handle.describe()).spec.intervals ?? [];
    return now.length === 1 ? now[0].every : opts.intervalMs;
  }
  opts.logger.info(
    { schedule_id: opts.scheduleId, was: intervalsOf(current), now: `${opts.intervalMs}ms`, changed: stale },
    `${opts.kind} schedule updated to this worker's settings (${stale.join(', ')} differed)`,
  );
  return opts.intervalMs;
}

const intervalsOf = (d: ScheduleDescription) => (d.spec.intervals ?? []).map((i) => `${i.every}ms`).join(', ') || 'none';

/** The action's RecordKind, as the description gives its search attributes (a list, or the SDK's typed map). */
function kindOf(attrs: SearchAttributePair[] | TypedSearchAttributes | undefined) {
  if (!attrs) return undefined;
  if (Array.isArray(attrs)) return attrs.find((p) => p.key.name === RecordKindKey.name)?.value;
  return attrs.get(RecordKindKey);
}

/** What of the schedule differs from the settings: its spec (one interval, no offset, nothing else), its action. */
function staleParts(
  d: ScheduleDescription,
  want: { intervalMs: number; workflowTypeName: string; taskQueue: string; workflowId: string; kind: RecordKind },
): ('interval' | 'action')[] {
  const {
    intervals = [],
    calendars = [],
    cronExpressions = [],
  } = d.spec as {
    intervals?: { every: unknown; offset?: unknown }[];
    calendars?: unknown[];
    cronExpressions?: unknown[];
  };
  const specDiffers =
    intervals.length !== 1 ||
    Number(intervals[0].every) !== want.intervalMs ||
    Number(intervals[0].offset ?? 0) !== 0 ||
    calendars.length > 0 ||
    cronExpressions.length > 0;
  const a = d.action;
  const actionDiffers =
    a.workflowType !== want.workflowTypeName ||
    a.taskQueue !== want.taskQueue ||
    a.workflowId !== want.workflowId ||
    kindOf(a.typedSearchAttributes) !== want.kind;
  return [...(specDiffers ? (['interval'] as const) : []), ...(actionDiffers ? (['action'] as const) : [])];
}

/** One schedule per task queue, so that stacks sharing a Temporal namespace (tests) each check with their own worker. */
export const ledgerScheduleId = (taskQueue: string) => `ledger-verify:${taskQueue}`;

/** The interval the ledger check's schedule runs (ms): the staleness gauge reports it (docs/money.md). */
export function ensureLedgerSchedule(client: Client, opts: ScheduleOptions): Promise<number> {
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
export function ensurePayoutBatchSchedule(client: Client, opts: ScheduleOptions): Promise<number> {
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
export function ensureBankInboxSchedule(client: Client, opts: ScheduleOptions): Promise<number> {
  return ensureSchedule(client, {
    ...opts,
    scheduleId: bankInboxScheduleId(opts.taskQueue),
    workflowType: bankInboxWorkflow,
    workflowId: `bank-inbox-${opts.taskQueue}`,
    kind: 'batch',
    purpose: "takes the bank's files from BANK_INBOX_DIR, each once, into taken/ or rejected/",
  });
}
