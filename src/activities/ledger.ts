/** The ledger's scheduled verification (docs/money.md). */
import { Context } from '@temporalio/activity';
import type { PaymentState } from '../domain/paymentTypes';
import { ledgerReport, verifyLedger } from '../db/ledger';
import { ledgerInvariantViolations } from '../lib/metrics';
import { queryOrUndefined } from '../lib/workflowQuery';
import type { AttemptDeps } from './webhookAttempt';

export function ledgerActivities({ db, logger }: AttemptDeps) {
  return {
    /**
     * Check every ledger invariant, open payments against their workflow's own state (queried with
     * the worker's client); the count is the metric operators alert on.
     */
    async verifyLedgerInvariants(accountId?: string): Promise<{ violations: number; report: string[] }> {
      const { client } = Context.current();
      const violations = await verifyLedger(db, (id) => queryOrUndefined<PaymentState>(client, id, 'getPayment'), accountId);
      ledgerInvariantViolations.set(violations.length);
      const report = ledgerReport(violations);
      if (violations.length) logger.error({ violations: violations.length }, report);
      else logger.info('ledger verified: every invariant holds');
      return { violations: violations.length, report: report.split('\n').slice(0, 50) };
    },
  };
}
