/**
 * The reconciliation of one statement of the custody account (docs/reconciliation.md): read it (the
 * bytes the inbox stored under its message id, or a file by hand), compare it with the ledger's
 * custody bank account, the day's entries and the money owed, and write the one result of its
 * message id; the metrics follow from what is stored. A break is shown, never corrected.
 */
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { minorUnits } from '../ledger/money.rules';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/lib/logger';
import { reconciliationDifference, reconciliationLastBalanced } from '../platform/lib/metrics';
import type { ActivityResources } from '../platform/activityResources';
import { BankFileError } from '../payouts/bankFileErrors.format';
import { custodyBankBalance, custodyBankEntriesOn, owedBalances, reportedDepositsNotSeen } from './custodyBook.repository';
import { reconcile, summaryOf } from './reconciliation.rules';
import { type ReconciliationView, reconciliationView } from './reconciliation.view';
import { previousClosing, reconciliationGauges, saveReconciliation, statementBytes } from './reconciliations.repository';
import { readStatement } from './statement.format';

export type ReconcileOutcome =
  { outcome: 'reconciled'; reconciliation: ReconciliationView; summary: string } | { outcome: 'rejected'; reason: string };

/** The gauges of docs/reconciliation.md, from what is stored (so a worker's restart or another's result is reported alike). */
export async function reportReconciliationGauges(db: Knex): Promise<void> {
  for (const g of await reconciliationGauges(db)) {
    reconciliationDifference.set({ currency: g.currency }, Number(g.difference));
    reconciliationLastBalanced.set({ currency: g.currency }, g.lastBalancedAt ? Math.floor(g.lastBalancedAt.getTime() / 1000) : 0);
  }
}

export function statementReconciler({ db, config, logger }: { db: Knex; config: Config; logger: Logger }) {
  const limits = {
    maxBytes: config.BANK_FILE_MAX_BYTES,
    maxElements: config.BANK_FILE_MAX_ELEMENTS,
    maxEntries: config.BANK_FILE_MAX_ENTRIES,
  };

  /** Reconcile one statement's bytes; a statement that cannot be read, or is of another account, is rejected and nothing is written. */
  async function reconcileBytes(raw: Buffer | string, alive: () => void = () => undefined): Promise<ReconcileOutcome> {
    if (!config.CUSTODY_ACCOUNT_IBAN)
      return { outcome: 'rejected', reason: 'CUSTODY_ACCOUNT_IBAN is not set: no statement can be reconciled' };
    let statement;
    try {
      statement = readStatement(raw, config.CUSTODY_ACCOUNT_IBAN, limits);
    } catch (err) {
      if (err instanceof BankFileError) return { outcome: 'rejected', reason: `${err.reason}: ${err.message}` };
      throw err;
    }
    const { currency, date, messageId } = statement;
    const exponent = minorUnits(currency);
    // A heartbeat between queries: a worker that dies half-way hands the statement on within the heartbeat timeout.
    const step = async <T>(query: Promise<T>): Promise<T> => {
      const value = await query;
      alive();
      return value;
    };
    const result = reconcile({
      statement,
      bankEntries: statement.entries,
      ledgerBalance: await step(custodyBankBalance(db, currency, date)),
      ledgerEntries: await step(custodyBankEntriesOn(db, currency, date)),
      owedBalances: await step(owedBalances(db, currency)),
      reportedDeposits: await step(reportedDepositsNotSeen(db, currency)),
      previousClosing: await step(previousClosing(db, currency, date, messageId)),
    });
    const row = await saveReconciliation(db, { ...result, id: `rec_${ulid()}`, statementId: statement.statementId, exponent }, new Date());
    await reportReconciliationGauges(db);
    const summary = summaryOf(result, exponent);
    const log = { reconciliation: row.id, statement: messageId, date, currency, breaks: result.breaks };
    if (result.status === 'break') logger.error(log, `custody reconciliation: ${summary}`);
    else logger.info(log, 'custody reconciliation: balanced');
    return { outcome: 'reconciled', reconciliation: reconciliationView(row), summary };
  }

  return {
    reconcileBytes,
    /** Reconcile the statement the inbox took under `messageId`. */
    async reconcileMessage(messageId: string, alive: () => void = () => undefined): Promise<ReconcileOutcome> {
      const raw = await statementBytes(db, messageId);
      if (!raw) return { outcome: 'rejected', reason: `no bank file was taken with message id ${messageId}` };
      return reconcileBytes(raw, alive);
    },
  };
}

/** The reconciliation workflow's activity. */
export function reconciliationActivities({ db, config, logger }: ActivityResources) {
  const reconciler = statementReconciler({ db, config, logger });
  return {
    async reconcileStatement(input: { messageId: string }): Promise<{ outcome: 'reconciled' | 'rejected'; summary: string; id?: string }> {
      const result = await reconciler.reconcileMessage(input.messageId, () => {
        Context.current().heartbeat();
      });
      return result.outcome === 'rejected'
        ? { outcome: 'rejected', summary: `rejected: ${result.reason}` }
        : { outcome: 'reconciled', summary: result.summary, id: result.reconciliation.id };
    },
  };
}
