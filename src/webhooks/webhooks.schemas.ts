/** The webhook routes' schemas (src/webhooks/webhooks.routes.ts) and every delivery's body. */
import { z } from 'zod';
import { PAYMENT_EVENTS, type PaymentEvent } from '../payments/paymentTypes.rules';
import { WEBHOOK_EVENTS } from './webhookEvents.rules';
import { RecipientViewSchema } from '../recipients/recipient.view';
import { MilestoneViewSchema, SamplePaymentViewSchema } from '../payments/payment.view';
import { DELIVERY_STATUSES, DeliveryAttemptViewSchema, DeliveryStatusSchema, DeliveryViewSchema } from './delivery.view';
import { WebhookListItemViewSchema, WebhookSecretViewSchema, WebhookViewSchema } from './webhookConfiguration.view';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { listOf, listQuery, paymentIdFilter, wholeListOf } from '../platform/http/common.schemas';
import { Payment } from '../payments/payments.schemas';

export const ConfigureWebhookRequest = component(
  'ConfigureWebhookRequest',
  z
    .object({
      url: z.string().min(1).max(2048),
      events: z
        .array(z.enum(WEBHOOK_EVENTS, { message: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }))
        .min(1, 'events must not be empty')
        .refine((e) => new Set(e).size === e.length, 'events must not repeat a name')
        .optional()
        .describe("Default: every payment event (a recipient's events are sent only to configurations that name them)"),
    })
    .strict(),
  { url: S.webhook.url, events: S.webhook.events },
);

export const RotateSecretRequest = component(
  'RotateSecretRequest',
  z
    .object({
      expire_previous_in_seconds: z
        .number()
        .int()
        .min(0)
        .max(7 * 24 * 3600)
        .default(24 * 3600)
        .describe('How long the previous secret keeps signing beside the new one (default 24 h; 0: stops at once)'),
    })
    .strict(),
  { expire_previous_in_seconds: 86400 },
);

export const UpdateWebhookRequest = component(
  'UpdateWebhookRequest',
  z.object({ active: z.boolean().describe('true turns a disabled configuration on again; false turns it off') }).strict(),
  { active: true },
);

export const RecoverRequest = component(
  'RecoverRequest',
  z
    .object({
      since: z.iso
        .datetime({ offset: true })
        .describe('Resend every delivery created at or after this ISO 8601 time that failed and has no series of attempts running'),
    })
    .strict(),
  { since: '2026-11-22T00:00:00Z' },
);

export const ListDeliveriesQuery = listQuery('dlv', 'A delivery', {
  status: z.enum(DELIVERY_STATUSES).optional().describe('Only deliveries in this status'),
  payment_id: paymentIdFilter.describe("Only this payment's deliveries"),
});

export const Webhook = component('Webhook', WebhookViewSchema, { ...S.webhook, disabled_reason: null });

export const WebhookWithSecret = component('WebhookWithSecret', WebhookSecretViewSchema);

export const WebhookConfigured = component(
  'WebhookConfigured',
  z.object({ success: z.literal(true), webhook: WebhookWithSecret }),
  S.webhookConfigured,
);

export const WebhookListItem = component('WebhookListItem', WebhookListItemViewSchema, S.webhookListItem);

export const WebhookList = component('WebhookList', wholeListOf(WebhookListItem), S.list(S.webhookListItem));

export const DeliveryStatus = component('DeliveryStatus', DeliveryStatusSchema);

export const DeliveryAttempt = component('DeliveryAttempt', DeliveryAttemptViewSchema);

export const Delivery = component('Delivery', DeliveryViewSchema, S.delivery);

export const WebhookDeliveryList = component('WebhookDeliveryList', listOf(Delivery), S.list(S.delivery));

export const WebhookTestSent = component('WebhookTestSent', z.object({ success: z.literal(true), delivery_id: z.string() }), {
  success: true,
  delivery_id: S.delivery.id,
});

export const WebhookResent = component(
  'WebhookResent',
  z.object({
    success: z.literal(true),
    delivery_id: z.string(),
    attempt: z.number().int().min(1).describe('The number of the attempt that runs now, in the delivery log and the Temporal UI'),
  }),
  { success: true, delivery_id: S.delivery.id, attempt: 3 },
);

export const WebhookRecovered = component(
  'WebhookRecovered',
  z.object({
    success: z.literal(true),
    delivery_ids: z.array(z.string()).describe('The deliveries queued for a new series of attempts, oldest first'),
    queued: z.number().int().describe('How many were queued: at most RECOVER_MAX_DELIVERIES (default 1,000) per call'),
    has_more: z.boolean().describe('More failed deliveries remain since that time: call again'),
    pending: z
      .number()
      .int()
      .describe(
        'Deliveries since that time still pending: their series is retrying them on its own schedule, so recover queues none of them (resend one to try it now)',
      ),
    message: z.string().describe('What was queued and what was left, in words: a queued 0 says why'),
  }),
  {
    success: true,
    delivery_ids: [S.delivery.id],
    queued: 1,
    has_more: false,
    pending: 0,
    message: '1 failed delivery queued for a new series of attempts',
  },
);

/** What every webhook delivery's body holds (docs/webhooks.md): one envelope per event name. */
const envelope = <E extends PaymentEvent>(event: E) =>
  z.object({
    event: z.literal(event),
    payment_id: z.string(),
    timestamp: z.string().describe('The time of the transition, ISO 8601 UTC'),
    sequence: z.number().int().describe("The payment's version: ignore an event whose sequence is lower than one you applied"),
    ...(event.startsWith('payment.milestone_')
      ? { milestone: MilestoneViewSchema.describe('The milestone this event is about, as data.milestones shows it') }
      : {}),
    data:
      event === 'payment.test'
        ? SamplePaymentViewSchema.describe('A sample payment whose status is "test"')
        : Payment.describe('The payment as it was right after this event'),
  });

/** `payment.deposited` → `PaymentDepositedEvent`. */
export const webhookSchemaName = (event: string) =>
  `${event
    .split(/[._]/)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Event`;

export const WEBHOOK_ENVELOPES = Object.fromEntries(
  PAYMENT_EVENTS.map((e) => [e, component(webhookSchemaName(e), envelope(e), S.webhookExample(e))]),
) as Record<PaymentEvent, ReturnType<typeof envelope>>;

/** `recipient.updated`'s body (docs/webhooks.md): the recipient in `data`, its version in `sequence`. */
export const RecipientUpdatedEvent = component(
  'RecipientUpdatedEvent',
  z.object({
    event: z.literal('recipient.updated'),
    recipient_id: z.string(),
    timestamp: z.string().describe('When the recipient changed, ISO 8601 UTC'),
    sequence: z.number().int().describe("The recipient's version: ignore an event whose sequence is lower than one you applied"),
    data: RecipientViewSchema.describe('The recipient as it was right after this change'),
  }),
  S.recipientUpdated,
);
