export * from './payment';
export * from './webhookDelivery';
export * from './audit';
export * from './ledgerVerify';
