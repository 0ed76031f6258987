/** The ledger routes' schemas (src/api/routes/ledger.ts). */
import { z } from 'zod';
import { ENTRY_TYPES } from '../../domain/ledger';
import { BalanceViewSchema, LedgerEntryViewSchema } from '../../views/ledgerView';
import { component } from '../components';
import * as S from '../samples';
import { listOf, listQuery, paymentIdFilter, wholeListOf } from './common';

export const ListLedgerEntriesQuery = listQuery('le', 'A ledger entry', {
  payment_id: paymentIdFilter.describe("Only this payment's entries"),
  type: z.enum(ENTRY_TYPES).optional().describe('Only entries of this type: deposit, refund, release or split'),
});

export const LedgerEntry = component('LedgerEntry', LedgerEntryViewSchema, S.ledgerEntry);

export const LedgerEntryList = component('LedgerEntryList', listOf(LedgerEntry), S.list(S.ledgerEntry));

export const PaymentLedger = component('PaymentLedger', wholeListOf(LedgerEntry), S.list(S.ledgerEntry));

export const Balance = component('Balance', BalanceViewSchema, S.balance);
