/** Every event a webhook configuration may name (docs/webhooks.md): the payments', the recipients' and the payouts'. */
import { PAYMENT_EVENTS } from './paymentTypes';
import { PAYOUT_EVENTS } from './payout';
import { RECIPIENT_EVENTS } from './recipients';

export const WEBHOOK_EVENTS = [...PAYMENT_EVENTS, ...RECIPIENT_EVENTS, ...PAYOUT_EVENTS] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
