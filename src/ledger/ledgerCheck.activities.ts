/** The ledger's scheduled verification (docs/money.md). */
import { Context } from '@temporalio/activity';
import type { PaymentState } from '../payments/paymentTypes.rules';
import type { PayoutStatus } from '../payouts/payout.rules';
import { ledgerReport, runLedgerCheck, verifyLedger } from './ledgerCheck.repository';
import { ledgerInvariantViolations, ledgerVerifyLastFailure, ledgerVerifyLastSuccess } from '../platform/lib/metrics';
import { queryOrUndefined } from '../platform/lib/workflowQuery';
import type { ActivityResources } from '../platform/activityResources';

/** At most this many report lines travel back in the workflow's result. */
const REPORT_LINES = 50;

export function ledgerActivities({ db, config, logger }: ActivityResources) {
  const workflowState = (id: string) => queryOrUndefined<PaymentState>(Context.current().client, id, 'getPayment');
  const payoutState = (id: string) =>
    queryOrUndefined<{ status: PayoutStatus; version: number }>(Context.current().client, id, 'getPayout');
  /** A run that throws is a failed run: its time is the metric the staleness alert's twin watches. */
  const failing = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      ledgerVerifyLastFailure.set(Date.now() / 1000);
      logger.error({ err }, 'ledger check failed to run');
      throw err;
    }
  };
  const summary = (violations: Parameters<typeof ledgerReport>[0]) => {
    ledgerInvariantViolations.set(violations.length);
    const report = ledgerReport(violations);
    if (violations.length) logger.error({ violations: violations.length }, report);
    else logger.info('ledger verified: every invariant holds');
    return { violations: violations.length, report: report.split('\n').slice(0, REPORT_LINES) };
  };
  return {
    /** Every invariant of one account (a check started by hand), open payments against their workflow's own state. */
    async verifyLedgerInvariants(accountId: string): Promise<{ violations: number; report: string[] }> {
      return failing(async () => summary((await verifyLedger(db, workflowState, accountId, undefined, { state: payoutState })).violations));
    },

    /**
     * One run of the periodic check `name` (its cursor in PostgreSQL): the ledger-wide invariants and
     * the next LEDGER_VERIFY_PAGE_SIZE payments; its completion is `ledger_verify_last_success_timestamp_seconds`.
     */
    async checkLedgerPage(name: string, fromFirst = false) {
      return failing(async () => {
        const run = await runLedgerCheck(db, workflowState, { name, pageSize: config.LEDGER_VERIFY_PAGE_SIZE, fromFirst, payoutState });
        ledgerVerifyLastSuccess.set(Date.now() / 1000);
        const { violations, report } = summary(run.violations);
        return { violations, report, payments: run.payments, first: run.first, last: run.last, wrapped: run.wrapped };
      });
    },
  };
}
