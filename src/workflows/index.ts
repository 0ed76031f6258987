/** The workflows, as the worker's bundle and the clients import them. */
export * from './payment';
export * from './paymentMessages';
export * from './webhookDelivery';
export * from './deliverySeries';
export * from './webhookDeliveryWorkflow';
export * from './legacyDelivery';
export * from './audit';
export * from './ledgerVerify';
export * from './payout';
export * from './bankInbox';
