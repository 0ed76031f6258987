/** The ledger's use cases (docs/money.md): balances, a payment's entries, the entry list, and the invariant check. */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { balanceView, ledgerEntryView } from './ledger.view';
import type { PaymentState } from '../payments/paymentTypes.rules';
import type { PayoutStatus } from '../payouts/payout.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { type LedgerEntryFilter, findBalances, listLedgerEntries, paymentLedger } from './ledger.repository';
import { ledgerReport, verifyLedger } from './ledgerCheck.repository';
import { balancesAsOf } from './ledgerAccounts.repository';
import { findPayment } from '../payments/payments.repository';
import { type LedgerCheckResult, getPaymentQuery, ledgerVerifyWorkflow } from '../platform/workflows.workflow';
import { type RecordKind, RecordKindKey } from '../platform/searchAttributes.rules';
import { queryOrUndefined } from '../platform/lib/workflowQuery';
import { NotFound, pageOrRefuse } from '../platform/useCaseErrors';

/** How long `npm run ledger:verify` waits for a worker to finish a check it asked for. */
const CHECK_TIMEOUT = '30 minutes';

/**
 * The ledger check run by a worker of `taskQueue` (the process that holds the database, also the
 * embedded one of `npm start`), as the schedule runs it; its result when it ends. Refused at once
 * when no worker polls the queue.
 */
export async function checkInWorker(
  temporal: Client,
  opts: { taskQueue: string; accountId?: string; all?: boolean },
): Promise<LedgerCheckResult> {
  const { pollers } = await temporal.workflowService.describeTaskQueue({
    namespace: temporal.options.namespace,
    taskQueue: { name: opts.taskQueue },
  });
  if (pollers.length === 0) throw new NoWorker(opts.taskQueue);
  return temporal.workflow.execute(ledgerVerifyWorkflow, {
    taskQueue: opts.taskQueue,
    workflowId: `ledger-verify-by-hand-${randomUUID()}`,
    args: [{ ...(opts.accountId ? { accountId: opts.accountId } : {}), ...(opts.all ? { all: true } : {}) }],
    workflowExecutionTimeout: CHECK_TIMEOUT,
    // Out of the operators' payments list, as the schedule's runs (docs/operations.md).
    typedSearchAttributes: [{ key: RecordKindKey, value: 'check' satisfies RecordKind }],
  });
}

/** A check's result in words, as `npm run ledger:verify` prints it: its report, then which payments a periodic run covered. */
export function checkText(result: LedgerCheckResult, all = false): string {
  const lines = [...result.report];
  if (result.payments !== undefined) {
    const next = all ? ', all of them' : result.wrapped ? '; the next run starts from the first' : '; the next run goes on from there';
    lines.push(`(${result.payments} payment${result.payments === 1 ? '' : 's'} checked${next})`);
  }
  return `${lines.join('\n')}\n`;
}

/** No worker polls the task queue the check was asked of. */
export class NoWorker extends Error {
  constructor(readonly taskQueue: string) {
    super(`no worker polls task queue ${taskQueue}: start \`npm start\` or \`npm run worker\` (TEMPORAL_TASK_QUEUE names the queue)`);
  }
}

export function ledgerService({ db, temporal }: { db: Knex; temporal?: Client }) {
  /**
   * Every invariant, open payments against their workflow's own state (or, with `workflows: false`,
   * the database's own invariants only); `accountId` narrows it to one account.
   */
  async function verify(accountId?: string, opts: { workflows?: boolean } = {}) {
    const state = (id: string) =>
      temporal ? queryOrUndefined<PaymentState>(temporal, id, getPaymentQuery.name) : Promise.resolve(undefined);
    const payoutState = (id: string) =>
      temporal ? queryOrUndefined<{ status: PayoutStatus; version: number }>(temporal, id, 'getPayout') : Promise.resolve(undefined);
    const { violations } = await verifyLedger(
      db,
      opts.workflows === false ? () => Promise.resolve(undefined) : state,
      accountId,
      undefined,
      opts.workflows === false ? {} : { state: payoutState },
    );
    return opts.workflows === false ? violations.filter((v) => v.check !== 'workflow_state') : violations;
  }

  return {
    /** From the balances kept beside the entries: no scan of postings. */
    async balance(scope: Scope, asOf?: Date) {
      return balanceView(scope.livemode, asOf ? await balancesAsOf(db, scope, asOf) : await findBalances(db, scope));
    },

    async paymentLedger(scope: Scope, paymentId: string) {
      if (!(await findPayment(db, scope, paymentId))) throw new NotFound('payment');
      return (await paymentLedger(db, paymentId)).map(ledgerEntryView);
    },

    async list(scope: Scope, filter: LedgerEntryFilter) {
      const page = pageOrRefuse(await listLedgerEntries(db, scope, filter), 'not a ledger entry of this account and mode');
      return { data: page.rows.map(ledgerEntryView), hasMore: page.hasMore };
    },

    verify,

    /** The same check with its result as a worker's run words it (`checkInWorker`): `npm run ledger:verify --skip-workflows`. */
    async check(accountId?: string, opts: { workflows?: boolean } = {}): Promise<LedgerCheckResult> {
      const violations = await verify(accountId, opts);
      return { violations: violations.length, report: ledgerReport(violations).split('\n') };
    },
  };
}

export type LedgerService = ReturnType<typeof ledgerService>;
