/** Every event a webhook configuration may name (docs/webhooks.md): the payments', the recipients', the payouts' and the bank credits'. */
import { PAYMENT_EVENTS } from '../payments/paymentTypes.rules';
import { PAYOUT_EVENTS } from '../payouts/payout.rules';
import { RECIPIENT_EVENTS } from '../recipients/recipients.rules';
import { BANK_CREDIT_EVENTS } from '../payouts/bankCredit.rules';

export const WEBHOOK_EVENTS = [...PAYMENT_EVENTS, ...RECIPIENT_EVENTS, ...PAYOUT_EVENTS, ...BANK_CREDIT_EVENTS] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
