export * from './payment';
export * from './webhookDelivery';
