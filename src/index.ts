/** The package's public surface for receivers of this service's webhooks. */
export { verifyWebhook, verifyWebhookSignature, signWebhookBody, type WebhookVerdict } from './webhooks/signature';
export { PAYMENT_EVENTS, PAYMENT_STATUSES, type PaymentEvent, type PaymentStatus } from './payments/paymentTypes.rules';
