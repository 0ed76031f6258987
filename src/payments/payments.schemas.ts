/**
 * The payment routes' schemas (src/payments/payments.routes.ts, testHelpers.ts): a transition's and a
 * dispute's bodies, the list, the payment and its history. The create body is ./paymentCreation.ts's.
 */
import { z } from 'zod';
import { DEAL_PARTIES, DISPUTE_PARTIES, PAYMENT_EVENTS, PAYMENT_STATUSES, RESOLUTIONS } from './paymentTypes.rules';
import { MAX_EVIDENCE_CHARS, MAX_OFFER_NOTE_CHARS } from './disputeTable.rules';
import { SPLIT_RULES } from './payment.rules';
import { PaymentViewSchema } from './payment.view';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { listOf, listQuery, reason, text, wholeListOf } from '../platform/http/common.schemas';

export const TransitionRequest = component('TransitionRequest', z.object({ reason }).strict(), { reason: 'Buyer confirmed delivery' });

const partAmount = (field: string, what: string) =>
  z
    .number({ message: `${field} must be a number in major units, e.g. 20.00` })
    .describe(`${what}, in major units; no more fractional digits than the currency has`);

export const RefundRequest = component(
  'RefundRequest',
  z.object({ amount: partAmount('amount', 'How much of what is held to refund (default: all of it)').optional(), reason }).strict(),
  { amount: 20, reason: 'One item returned' },
);

export const ResolveRequest = component(
  'ResolveRequest',
  z
    .object({
      resolution: z.enum(RESOLUTIONS, { message: 'resolution must be "release", "refund" or "split"' }),
      refund_amount: partAmount(
        'refund_amount',
        'For split: refunded to the payer (0 < refund_amount < amount_held); the rest is released',
      ).optional(),
      reason,
    })
    .strict()
    .superRefine((body, ctx) => {
      if (body.resolution === 'split' && body.refund_amount === undefined) {
        ctx.addIssue({ code: 'custom', path: ['refund_amount'], message: SPLIT_RULES.requiredForSplit });
      }
      if (body.resolution !== 'split' && body.refund_amount !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['refund_amount'], message: SPLIT_RULES.onlyForSplit });
      }
    }),
  { resolution: 'refund', reason: 'Item never arrived' },
);

export const DisputeRequest = component(
  'DisputeRequest',
  z
    .object({
      reason,
      opened_by: z
        .enum(DISPUTE_PARTIES, { message: 'opened_by must be "payer", "recipient" or "platform"' })
        .default('platform')
        .describe('Who opens it; the other party responds (none when the platform opens it)'),
      respond_within_seconds: z
        .number()
        .int()
        .min(1)
        .max(366 * 24 * 3600)
        .optional()
        .describe(
          'How long the respondent has before the dispute is decided for the party that opened it (default DISPUTE_RESPONSE_SECONDS)',
        ),
    })
    .strict(),
  { reason: 'Item never arrived', opened_by: 'payer', respond_within_seconds: 604800 },
);

const dealParty = (field: string) => z.enum(DEAL_PARTIES, { message: `${field} must be "payer" or "recipient"` });

export const DisputeEvidenceRequest = component(
  'DisputeEvidenceRequest',
  z
    .object({
      party: dealParty('party'),
      text: text(MAX_EVIDENCE_CHARS).min(1).describe('Personal data: kept by the service only, erased by redact'),
    })
    .strict(),
  { party: 'recipient', text: 'Tracking shows the parcel delivered on 24 November' },
);

export const DisputeOfferRequest = component(
  'DisputeOfferRequest',
  z
    .object({
      proposed_by: dealParty('proposed_by'),
      refund_amount: z
        .number({ message: 'refund_amount must be a number in major units, e.g. 20.00' })
        .describe('To the payer, 0 ≤ refund_amount ≤ the disputed amount, in major units; the rest is released'),
      note: text(MAX_OFFER_NOTE_CHARS).nullable().optional().describe('Personal data: kept by the service only, erased by redact'),
    })
    .strict(),
  { proposed_by: 'recipient', refund_amount: 20, note: 'Half the shipping back' },
);

export const DisputePartyRequest = component(
  'DisputePartyRequest',
  z.object({ party: z.enum(DISPUTE_PARTIES, { message: 'party must be "payer", "recipient" or "platform"' }) }).strict(),
  { party: 'payer' },
);

export const AdvanceClockRequest = component(
  'AdvanceClockRequest',
  z
    .object({
      seconds: z
        .number()
        .int()
        .min(1)
        .max(366 * 24 * 3600)
        .describe('How far to move this payment’s clock forward'),
    })
    .strict(),
  { seconds: 604800 },
);

export const ListPaymentsQuery = listQuery('pay', 'A payment', {
  status: z.enum(PAYMENT_STATUSES).optional().describe('Only payments in this status'),
});

export const Payment = component('Payment', PaymentViewSchema, S.inCustody);

export const PaymentList = component('PaymentList', listOf(Payment), S.list(S.inCustody));

export const PaymentHistoryEntry = component(
  'PaymentHistoryEntry',
  z.object({
    seq: z.number().describe("The payment's version after this step; a redaction's is the version it redacted"),
    action: z.string().describe('The transition, "create", or "redact" (the payment\'s personal data was erased)'),
    from: z.enum(PAYMENT_STATUSES).nullable(),
    to: z.enum(PAYMENT_STATUSES),
    event: z.enum(PAYMENT_EVENTS).nullable().describe('null for a redaction, which emits no event'),
    actor: z.string(),
    reason: z.string().nullable().describe('Why, as the client said it; "[redacted]" once the payment was redacted'),
    at: z.string(),
    milestone_id: z
      .string()
      .nullable()
      .describe("The milestone a milestone's action (or its auto-release) was for; null for the payment's own"),
  }),
);

export const PaymentHistory = component('PaymentHistory', wholeListOf(PaymentHistoryEntry), S.history);
