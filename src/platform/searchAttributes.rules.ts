/** The Temporal search attributes this service sets on its workflows. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes kept current on every transition, so operators can find payments in the Temporal UI. */
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const PaymentAmountKey = defineSearchAttributeKey('PaymentAmount', SearchAttributeType.DOUBLE);
export const PaymentCurrencyKey = defineSearchAttributeKey('PaymentCurrency', SearchAttributeType.KEYWORD);
export const AccountIdKey = defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD);
export const LivemodeKey = defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL);
/** The pending deposit deadline or auto-release time; absent when none is pending (docs/operations.md). */
export const NextDeadlineKey = defineSearchAttributeKey('NextDeadline', SearchAttributeType.DATETIME);

/**
 * What a workflow of this service is, set when it starts, so that the operators' list can hold
 * payments only (`RecordKind="payment"`, docs/operations.md): `payment`, `delivery` (test event,
 * resend, continued delivery), `check` (the scheduled ledger check), `payout`, or `batch` (a live payout file's writer).
 */
export const RecordKindKey = defineSearchAttributeKey('RecordKind', SearchAttributeType.KEYWORD);
export type RecordKind = 'payment' | 'delivery' | 'check' | 'payout' | 'batch';

/** The operators' list of payments (no deliveries, no checks' runs): the visibility query the UI links carry. */
export const PAYMENTS_QUERY = 'RecordKind="payment"';

/** The Temporal UI's workflow list of `namespace` filtered to payments, under the UI at `uiUrl`. */
export function paymentsListUrl(uiUrl: string, namespace: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(PAYMENTS_QUERY)}`;
}

/** Name → type as `temporal server start-dev --search-attribute` and `operator search-attribute create` spell them. */
export const SEARCH_ATTRIBUTE_TYPES: Record<string, string> = {
  PaymentStatus: 'Keyword',
  PaymentAmount: 'Double',
  PaymentCurrency: 'Keyword',
  AccountId: 'Keyword',
  Livemode: 'Bool',
  NextDeadline: 'Datetime',
  RecordKind: 'Keyword',
};
