/**
 * One zod schema per request and response, per resource beside its routes. A request's validates it and types what its handler
 * gets; the OpenAPI document is written from all of them, so the reference cannot drift from the
 * validation. Answers are built by the views (src/views/), not validated at run time.
 */
export * from './common';
export * from './payments';
export * from './paymentCreation';
export * from './events';
export * from './ledger';
export * from './account';
export * from './webhooks';
export * from './audit';
export * from './recipients';
export * from './bankAccounts';
export * from './payouts';
