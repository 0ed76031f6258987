/** The workflows, as the worker's bundle and the clients import them. */
export * from './payment';
export * from './webhookDelivery';
export * from './audit';
export * from './ledgerVerify';
