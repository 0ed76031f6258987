/** The ledger's use cases (docs/money.md): balances, a payment's entries, the entry list, and the invariant check. */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { balanceView, ledgerEntryView } from '../views/ledgerView';
import type { PaymentState } from '../domain/paymentTypes';
import type { Scope } from '../domain/tenancy';
import { type LedgerEntryFilter, findBalances, listLedgerEntries, paymentLedger, verifyLedger } from '../db/ledger';
import { findPayment } from '../db/payments';
import { getPaymentQuery } from '../workflows';
import { queryOrUndefined } from '../lib/workflowQuery';
import { NotFound, pageOrRefuse } from './errors';

export function ledgerService({ db, temporal }: { db: Knex; temporal: Client }) {
  return {
    /** From the balances kept beside the entries: no scan of postings. */
    async balance(scope: Scope) {
      return balanceView(scope.livemode, await findBalances(db, scope));
    },

    async paymentLedger(scope: Scope, paymentId: string) {
      if (!(await findPayment(db, scope, paymentId))) throw new NotFound('payment');
      return (await paymentLedger(db, paymentId)).map(ledgerEntryView);
    },

    async list(scope: Scope, filter: LedgerEntryFilter) {
      const page = pageOrRefuse(await listLedgerEntries(db, scope, filter), 'not a ledger entry of this account and mode');
      return { data: page.rows.map(ledgerEntryView), hasMore: page.hasMore };
    },

    /** Every invariant, open payments against their workflow's own state; `accountId` narrows it to one account. */
    verify(accountId?: string) {
      return verifyLedger(db, (id) => queryOrUndefined<PaymentState>(temporal, id, getPaymentQuery.name), accountId);
    },
  };
}

export type LedgerService = ReturnType<typeof ledgerService>;
