/**
 * One zod schema per request and response, per resource beside its routes. A request's validates it and types what its handler
 * gets; the OpenAPI document is written from all of them, so the reference cannot drift from the
 * validation. Answers are built by the views (the rooms' `*.view.ts`), not validated at run time.
 */
export * from './common.schemas';
export * from '../../payments/payments.schemas';
export * from '../../payments/paymentCreation.schemas';
export * from '../../webhooks/events.schemas';
export * from '../../ledger/ledger.schemas';
export * from '../../tenants/account.schemas';
export * from '../../webhooks/webhooks.schemas';
export * from '../../audit/audit.schemas';
export * from '../../recipients/recipients.schemas';
export * from '../../payouts/bankAccounts.schemas';
export * from '../../payouts/payouts.schemas';
export * from '../../payouts/bankCredits.schemas';
