/**
 * Credits booked at the custody account (docs/bank.md, "Unapplied credits"): their statuses, and the
 * ledger's name for the operator, whose credits name no payment of any tenant.
 * Pure: no I/O.
 */
export const BANK_CREDIT_STATUSES = ['unapplied', 'applied', 'returned'] as const;
export type BankCreditStatus = (typeof BANK_CREDIT_STATUSES)[number];

/**
 * A credit's events (docs/webhooks.md, "Bank credit events"): booked for an account (`received`), taken
 * by a payment (`applied`), sent back to its debtor (`returned`). The operator's credits have none.
 */
export const BANK_CREDIT_EVENTS = ['bank_credit.received', 'bank_credit.applied', 'bank_credit.returned'] as const;
export type BankCreditEvent = (typeof BANK_CREDIT_EVENTS)[number];

/** The ledger's `account_id` of an operator's credit: it belongs to no tenant. */
export const OPERATOR_ACCOUNT = 'operator';

/** The last four characters of a debtor's account number: all that is ever shown of it. */
export const last4 = (iban: string | null | undefined): string | null => (iban ? iban.replace(/\s+/g, '').slice(-4) : null);
