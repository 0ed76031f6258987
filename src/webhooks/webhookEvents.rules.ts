/** Every event a webhook configuration may name (docs/webhooks.md): the payments', the recipients' and the payouts'. */
import { PAYMENT_EVENTS } from '../payments/paymentTypes.rules';
import { PAYOUT_EVENTS } from '../payouts/payout.rules';
import { RECIPIENT_EVENTS } from '../recipients/recipients.rules';

export const WEBHOOK_EVENTS = [...PAYMENT_EVENTS, ...RECIPIENT_EVENTS, ...PAYOUT_EVENTS] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
