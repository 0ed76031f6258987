/**
 * `npm run repair`: payments whose run an operator terminated or reset (or that timed out) while
 * their money was not settled get a new run from the durable state (docs/operations.md).
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { type HistoryEntry, TERMINAL_STATUSES } from './paymentTypes.rules';
import type { PaymentRecord } from './paymentRecord.rules';
import { nextDeadlineOf } from './paymentTimers.rules';
import { transitionEnvelopes } from '../webhooks/webhookEnvelope.view';
import { planDeliveries } from '../webhooks/deliveryPlan.repository';
import { continuedRetry, deliveryRetry } from '../webhooks/retrySchedule';
import { deliveries } from '../webhooks/deliveries.service';
import { ORIGINAL_SERIES } from '../webhooks/deliveryAttempt.rules';
import { type RepairDecision, type RunStatus, repairDecision } from './repair.rules';
import { findPaymentById, listOpenPaymentIds, listPaymentEvents } from './payments.repository';
import type { Logger } from '../platform/lib/logger';
import { getPaymentQuery, paymentWorkflow } from '../platform/workflows.workflow';
import { paymentRunOptions } from './paymentRun.service';
import { withoutPersonal } from './personalData.rules';
import { withDisputeTexts } from './disputeTexts.repository';

interface RepairDeps {
  db: Knex;
  temporal: Client;
  config: Config;
  logger: Logger;
}

/** One payment's repair: what was found, and what was done (`started`, `replaced`, or nothing). */
export interface RepairResult {
  paymentId: string;
  found: RepairDecision['kind'] | 'not_found';
  why: string;
  /** Set when a new run was started: its run id. */
  runId?: string;
  /** Deliveries the stopped run left pending, now continued in workflows of their own. */
  deliveriesResumed?: number;
}

/** The actor written on nothing (a repaired run records no entry of its own), but logged with the run. */
const REPAIR_ACTOR = 'repair';

export function repairService({ db, temporal, config, logger }: RepairDeps) {
  const { deliver } = deliveries({ db, temporal, config });

  /** The latest run's status and, when it runs, the version its state is at. */
  async function runOf(id: string): Promise<{ status: RunStatus; version?: number }> {
    const handle = temporal.workflow.getHandle(id);
    let status: RunStatus;
    try {
      status = (await handle.describe()).status.name as RunStatus;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { status: 'missing' };
      throw err;
    }
    if (status !== 'RUNNING') return { status };
    return { status, version: (await handle.query(getPaymentQuery)).version };
  }

  /** A new run from the read model row (its milestones' auto-release times included) and its history (payment_events). */
  async function startFromReadModel(payment: PaymentRecord, history: HistoryEntry[]): Promise<string | undefined> {
    try {
      const handle = await temporal.workflow.start(paymentWorkflow, {
        ...paymentRunOptions(config, payment, nextDeadlineOf(payment)),
        // Only after a run that failed, was terminated, cancelled or timed out: never beside a live or completed one.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        // Ids and amounts only (docs/architecture.md, "Personal data"): no personal field, no client's reason.
        args: [
          {
            payment: withoutPersonal(payment),
            actor: REPAIR_ACTOR,
            resumed: { history: history.map((e) => (e.actor === 'system' ? e : { ...e, reason: null })) },
          },
        ],
      });
      return handle.firstExecutionRunId;
    } catch (err) {
      // A repair running at the same time started it first: the payment has its run.
      if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
      throw err;
    }
  }

  /**
   * The stopped run's deliveries: the last transition's are planned if its run stopped before
   * planning them (same ids, so never twice), and every delivery still pending continues in its
   * workflow (named by the delivery's id, on the one way in: a running one goes on as it is) with
   * the attempts it had left, numbered after those logged.
   */
  async function resumeDeliveries(payment: PaymentRecord, last: HistoryEntry | undefined): Promise<number> {
    if (last && last.seq === payment.version) {
      const envelopes = transitionEnvelopes(await withDisputeTexts(db, payment), last);
      await planDeliveries(db, { accountId: payment.accountId, livemode: payment.livemode }, envelopes, payment.version);
    }
    const pending: { id: string; attempts: number; series: string | null }[] = await db('webhook_deliveries')
      .where({ payment_id: payment.id, status: 'pending' })
      .select('id', 'attempts', 'series');
    for (const { id, attempts, series: claimed } of pending) {
      // The attempts the series had left, now, numbered after those logged.
      const rest = continuedRetry(deliveryRetry(config), attempts);
      if (!rest) continue;
      const series = claimed ?? ORIGINAL_SERIES;
      const input = { deliveryId: id, series, retry: rest.retry, base: attempts };
      await deliver(
        { scope: payment, input, summary: `continue ${id} for ${payment.id} (repair)`, once: false },
        { series, logged: attempts },
      );
    }
    return pending.length;
  }

  async function repairOne(id: string): Promise<RepairResult> {
    const row = await findPaymentById(db, id);
    if (!row) return { paymentId: id, found: 'not_found', why: 'no such payment in the read model' };
    const decision = repairDecision(row, await runOf(id));
    const result: RepairResult = { paymentId: id, found: decision.kind, why: decision.why };
    if (decision.kind === 'replace') {
      // A reset run would redo transitions the read model, ledger and receivers already have: it
      // goes, and the payment goes on from what they hold.
      await temporal.workflow
        .getHandle(id)
        .terminate(`npm run repair: ${decision.why}; restarted from the read model`)
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
    }
    if (decision.kind === 'start' || decision.kind === 'replace' || decision.kind === 'deliveries') {
      const history = await listPaymentEvents(db, id);
      if (decision.kind !== 'deliveries') result.runId = await startFromReadModel(row, history);
      result.deliveriesResumed = await resumeDeliveries(row, history.at(-1));
      logger.warn({ payment_id: id, run_id: result.runId, why: decision.why }, 'payment run repaired');
    }
    return result;
  }

  return {
    /** One payment by id; idempotent: a second repair finds the new run healthy. */
    repair: repairOne,
    /** Every payment (of one account, if given) whose read model status is not terminal, one after the other. */
    async repairAll(accountId?: string): Promise<RepairResult[]> {
      const results: RepairResult[] = [];
      for (const id of await listOpenPaymentIds(db, TERMINAL_STATUSES, accountId)) results.push(await repairOne(id));
      return results;
    },
  };
}
