/** The event routes' schemas (src/webhooks/events.routes.ts). */
import { z } from 'zod';
import { PAYMENT_EVENTS } from '../payments/paymentTypes.rules';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { listOf, listQuery, paymentIdFilter } from '../platform/http/common.schemas';
import { Payment } from '../payments/payments.schemas';
import { MilestoneViewSchema } from '../payments/payment.view';

export const ListEventsQuery = listQuery('evt', 'An event', {
  payment_id: paymentIdFilter.describe("Only this payment's events"),
  type: z.enum(PAYMENT_EVENTS).optional().describe('Only events of this type, e.g. payment.released'),
});

export const Event = component(
  'Event',
  z.object({
    id: z.string().describe('evt_ + 26 characters, the same for every reader'),
    object: z.literal('event'),
    type: z.enum(PAYMENT_EVENTS),
    payment_id: z.string(),
    sequence: z.number().describe("The payment's version: order a payment's events by it"),
    created_at: z.string(),
    milestone: MilestoneViewSchema.optional().describe('A milestone event’s milestone, as data.milestones shows it'),
    data: Payment.describe('The payment as it was right after this event'),
  }),
  S.event,
);

export const EventList = component('EventList', listOf(Event), S.list(S.event));
