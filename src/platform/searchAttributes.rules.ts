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

/** The payments list's query; of one mode's payments alone when `livemode` is given (test and live never mixed). */
export function paymentsQuery(livemode?: boolean): string {
  return livemode === undefined ? PAYMENTS_QUERY : `${PAYMENTS_QUERY} AND Livemode=${livemode}`;
}

/**
 * The Temporal UI's workflow list of `namespace` filtered to payments (of one mode when `livemode`
 * is given), under the UI at `uiUrl`. A link carries the query only: the UI keeps its columns in the
 * browser (docs/operations.md, "Status, amount and mode as columns").
 */
export function paymentsListUrl(uiUrl: string, namespace: string, livemode?: boolean): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(paymentsQuery(livemode))}`;
}

/**
 * The columns an operator adds to the payments list (docs/operations.md): status, amount and
 * currency, mode, and the next deadline; each a search attribute set at start and, for those that
 * change, on every transition.
 */
export const PAYMENT_COLUMNS = ['PaymentStatus', 'PaymentAmount', 'PaymentCurrency', 'Livemode', 'NextDeadline'] as const;

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
