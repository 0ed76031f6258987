export * from './payment';
export * from './webhookDelivery';
export * from './ledgerVerify';
