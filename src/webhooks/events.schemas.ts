/** The event routes' schemas (src/webhooks/events.routes.ts). */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from './webhookEvents.rules';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { listOf, listQuery, paymentIdFilter } from '../platform/http/common.schemas';
import { Payment } from '../payments/payments.schemas';
import { Payout } from '../payouts/payouts.schemas';
import { Recipient } from '../recipients/recipients.schemas';
import { BankCredit } from '../payouts/bankCredits.schemas';
import { MilestoneViewSchema } from '../payments/payment.view';

export const ListEventsQuery = listQuery('evt', 'An event', {
  payment_id: paymentIdFilter.describe("Only this payment's events"),
  type: z.enum(WEBHOOK_EVENTS).optional().describe('Only events of this type, e.g. payment.released or payout.paid'),
});

export const Event = component(
  'Event',
  z.object({
    id: z.string().describe('evt_ + 26 characters, the same for every reader'),
    object: z.literal('event'),
    type: z.enum(WEBHOOK_EVENTS),
    payment_id: z.string().optional().describe("A payment's event: the payment"),
    payout_id: z.string().optional().describe("A payout's event: the payout"),
    recipient_id: z.string().optional().describe("A recipient's event (recipient.updated): the recipient"),
    bank_credit_id: z.string().optional().describe("A bank credit's event (bank_credit.*): the credit"),
    sequence: z.number().describe("The object's version: order an object's events by it"),
    created_at: z.string(),
    milestone: MilestoneViewSchema.optional().describe('A milestone event’s milestone, as data.milestones shows it'),
    data: z
      .union([Payment, Payout, Recipient, BankCredit])
      .describe('The payment, payout, recipient or bank credit as it was right after this event (its `object` says which)'),
  }),
  S.event,
);

export const EventList = component('EventList', listOf(Event), S.list(S.event));
