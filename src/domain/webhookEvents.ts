/** Every event a webhook configuration may name (docs/webhooks.md): the payments' and the recipients'. */
import { PAYMENT_EVENTS } from './paymentTypes';
import { RECIPIENT_EVENTS } from './recipients';

export const WEBHOOK_EVENTS = [...PAYMENT_EVENTS, ...RECIPIENT_EVENTS] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
