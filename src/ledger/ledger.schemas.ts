/** The ledger routes' schemas (src/ledger/ledger.routes.ts). */
import { z } from 'zod';
import { ENTRY_TYPES } from './ledger.rules';
import { BalanceViewSchema, LedgerEntryViewSchema } from './ledger.view';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { listOf, listQuery, paymentIdFilter, wholeListOf } from '../platform/http/common.schemas';

export const ListLedgerEntriesQuery = listQuery('le', 'A ledger entry', {
  payment_id: paymentIdFilter.describe("Only this payment's entries"),
  type: z.enum(ENTRY_TYPES).optional().describe('Only entries of this type: deposit, refund, release or split'),
});

export const LedgerEntry = component('LedgerEntry', LedgerEntryViewSchema, S.ledgerEntry);

export const LedgerEntryList = component('LedgerEntryList', listOf(LedgerEntry), S.list(S.ledgerEntry));

export const PaymentLedger = component('PaymentLedger', wholeListOf(LedgerEntry), S.list(S.ledgerEntry));

export const Balance = component('Balance', BalanceViewSchema, S.balance);
