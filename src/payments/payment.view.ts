/** The payment as the API and webhooks show it, and its sample for `payment.test`. */
import { z } from 'zod';
import { toMajor } from '../ledger/money.rules';
import {
  DEAL_PARTIES,
  DECIDERS,
  DISPUTE_PARTIES,
  DISPUTE_STATUSES,
  FUNDINGS,
  OFFER_STATUSES,
  PAYMENT_STATUSES,
} from './paymentTypes.rules';
import { fundingReferenceOf } from './fundingReference.rules';
import type { DisputeWithTexts, MilestoneRecord, PaymentDetails } from './paymentRecord.rules';
import { amountsOf, moneyOf } from './paymentMoney.rules';
import { latestDispute } from './disputeTable.rules';

/** A dispute as the API and webhooks show it (docs/concepts.md, "Disputes"). */
export const DisputeViewSchema = z
  .object({
    id: z.string().describe('dp_ + 26 characters'),
    status: z.enum(DISPUTE_STATUSES),
    opened_by: z.enum(DISPUTE_PARTIES),
    respondent: z.enum(DEAL_PARTIES).nullable().describe('The other party; null when the platform opened it'),
    reason: z.string().nullable(),
    amount: z.number().describe('Everything the payment (or milestone) held when it was opened, in major units'),
    respond_by: z
      .string()
      .nullable()
      .describe("When the respondent's silence decides it for the party that opened it; null when the platform opened it"),
    created_at: z.string().describe("When it was opened (ISO 8601), on the payment's clock as every time of the dispute"),
    evidence: z.array(z.object({ id: z.string(), party: z.enum(DEAL_PARTIES), text: z.string(), submitted_at: z.string() })),
    offers: z.array(
      z.object({
        id: z.string(),
        proposed_by: z.enum(DEAL_PARTIES),
        refund_amount: z.number().describe('To the payer, in major units'),
        release_amount: z.number().describe('The rest of the disputed amount, to the recipient'),
        note: z.string().nullable(),
        status: z
          .enum(OFFER_STATUSES)
          .describe('expired: still proposed when the dispute was decided, by its deadline, an agreement, a withdrawal or resolve'),
        created_at: z.string(),
      }),
    ),
    resolution: z
      .object({
        refund_amount: z.number(),
        release_amount: z.number(),
        decided_by: z.enum(DECIDERS),
        at: z.string(),
      })
      .nullable(),
  })
  .nullable()
  .describe('Its latest dispute, also once it has ended; null if it was never disputed');
export type DisputeView = z.infer<typeof DisputeViewSchema>;

export function disputeView(s: Pick<PaymentDetails, 'currency' | 'amountExponent'>, d: DisputeWithTexts | undefined): DisputeView {
  if (!d) return null;
  const major = (minor: bigint) => toMajor(minor, s.currency, s.amountExponent);
  return {
    id: d.id,
    status: d.status,
    opened_by: d.openedBy,
    respondent: d.respondent,
    reason: d.reasonText,
    amount: major(d.amountMinor),
    respond_by: d.respondBy,
    created_at: d.openedAt,
    evidence: d.evidence.map((e) => ({ id: e.id, party: e.party, text: e.text, submitted_at: e.submittedAt })),
    offers: d.offers.map((o) => ({
      id: o.id,
      proposed_by: o.proposedBy,
      refund_amount: major(o.refundMinor),
      release_amount: major(d.amountMinor - o.refundMinor),
      note: o.note,
      status: o.status,
      created_at: o.createdAt,
    })),
    resolution: d.resolution && {
      refund_amount: major(d.resolution.refundMinor),
      release_amount: major(d.resolution.releaseMinor),
      decided_by: d.resolution.decidedBy,
      at: d.resolution.at,
    },
  };
}

/** One milestone as the API and webhooks show it (docs/concepts.md, "Deals paid in stages"). */
export const MilestoneViewSchema = z.object({
  id: z.string().describe('ms_ + 26 characters; a payment created without milestones has one, ms_ + its own ULID'),
  reference: z.string().nullable().describe("The platform's own name for it, unique within the payment"),
  description: z.string().nullable(),
  amount: z.number().describe('Its part of the amount, in major units'),
  recipient_email: z.string().describe("Who it is released to; the payment's recipient unless given"),
  recipient: z.string().optional().describe('The recipient (rcp_…) its releases credit, when the payment or the milestone named one'),
  status: z.enum(PAYMENT_STATUSES),
  amount_held: z.number().describe('In custody now; from deposit on, held + released + refunded = amount'),
  amount_released: z.number().describe('Released to its recipient, before the fee'),
  amount_refunded: z.number(),
  fee_collected: z.number().describe("The part of the payment's fee its releases collected"),
  release_at: z.string().nullable().describe('When its auto-release fires (pending_release with an auto-release only), else null'),
  dispute: DisputeViewSchema,
});
export type MilestoneView = z.infer<typeof MilestoneViewSchema>;

export function milestoneView(s: Pick<PaymentDetails, 'currency' | 'amountExponent' | 'disputes'>, m: MilestoneRecord): MilestoneView {
  const major = (minor: bigint) => toMajor(minor, s.currency, s.amountExponent);
  const a = amountsOf(m);
  return {
    id: m.id,
    reference: m.reference,
    description: m.description,
    amount: major(m.amountMinor),
    recipient_email: m.recipientEmail,
    ...(m.recipientId ? { recipient: m.recipientId } : {}),
    status: m.status,
    amount_held: major(a.held),
    amount_released: major(a.released),
    amount_refunded: major(a.refunded),
    fee_collected: major(a.feeCollected),
    release_at: m.releaseAt,
    dispute: disputeView(s, latestDispute(s, m.id)),
  };
}

/** Where and how a `bank_transfer` payment's payer transfers the money (docs/bank.md, "Funding by bank transfer"). */
export const FundingInstructionsSchema = z
  .object({
    type: z.literal('bank_transfer'),
    iban: z.string().describe("The operator's custody account"),
    bic: z.string(),
    account_holder_name: z.string(),
    reference: z.string().describe("The ISO 11649 creditor reference the payer writes in the transfer: the payment's funding_reference"),
    amount: z.number(),
    currency: z.string(),
    amount_received: z.number().describe('Booked at the bank with this reference so far, in major units'),
    amount_remaining: z.number().describe('amount − amount_received, never below 0'),
    expires_at: z
      .string()
      .describe('The deposit deadline: short by then, the payment is cancelled and what it received is an unapplied credit'),
  })
  .nullable()
  .describe('For funding "bank_transfer" only; null for "api"');

/**
 * The payment as the API and webhook `data` show it: amounts in major units (docs/money.md).
 * The one description of that shape: the type and the OpenAPI schema (src/payments/payments.schemas.ts) come
 * from it, and the document's examples are checked against it (test/unit/openapi-examples.test.ts).
 */
export const PaymentViewSchema = z.object({
  id: z.string().describe('pay_ + ULID; also the Temporal workflow ID'),
  object: z.literal('payment'),
  amount: z.number(),
  currency: z.string(),
  platform_fee: z.number().describe("The platform's commission, taken from what the recipient receives (docs/money.md)"),
  amount_held: z.number().describe('In custody now; from deposit on, held + released + refunded = amount'),
  amount_released: z.number().describe('Released to the recipient, before the fee'),
  amount_refunded: z.number().describe('Refunded to the payer'),
  fee_collected: z.number().describe('floor(platform_fee × amount_released / amount), in minor units'),
  status: z.enum(PAYMENT_STATUSES),
  payer_email: z.string(),
  recipient_email: z.string(),
  recipient: z.string().optional().describe('The recipient (rcp_…) named at creation, if any; its e-mail is recipient_email'),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  livemode: z.boolean(),
  deposit_deadline: z.string(),
  auto_release_after_seconds: z.number().nullable(),
  funding: z.enum(FUNDINGS).describe('How the money comes in: "api", reported by the platform; "bank_transfer", matched at the bank'),
  funding_reference: z
    .string()
    .describe(
      "ISO 11649 creditor reference (RF…): a bank_transfer's payer writes it in the transfer; an api payment's settlement transfer from the platform carries it (docs/bank.md)",
    ),
  funding_instructions: FundingInstructionsSchema,
  funded_by: z
    .enum(FUNDINGS)
    .nullable()
    .describe('How its deposit came, once deposited: "bank_transfer", the bank\'s credit; "api", the platform\'s report; null before'),
  milestones: z
    .array(MilestoneViewSchema)
    .describe('The parts the amount is released in, in the order given; one of the whole amount unless created with milestones'),
  dispute: DisputeViewSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type PaymentView = z.infer<typeof PaymentViewSchema>;

export function paymentView(s: PaymentDetails): PaymentView {
  const major = (minor: bigint) => toMajor(minor, s.currency, s.amountExponent);
  const amounts = amountsOf(s);
  return {
    id: s.id,
    object: 'payment',
    amount: major(s.amountMinor),
    currency: s.currency,
    platform_fee: major(moneyOf(s).platformFee),
    amount_held: major(amounts.held),
    amount_released: major(amounts.released),
    amount_refunded: major(amounts.refunded),
    fee_collected: major(amounts.feeCollected),
    status: s.status,
    payer_email: s.payerEmail,
    recipient_email: s.recipientEmail,
    ...(s.recipientId ? { recipient: s.recipientId } : {}),
    description: s.description,
    metadata: s.metadata,
    livemode: s.livemode,
    deposit_deadline: s.depositDeadline,
    auto_release_after_seconds: s.autoReleaseAfterSeconds,
    funding: s.funding ?? 'api',
    funding_reference: fundingReferenceOf(s.id),
    funding_instructions: fundingInstructions(s),
    funded_by: s.status === 'pending_deposit' || s.status === 'cancelled' ? null : (s.funding ?? 'api'),
    milestones: s.milestones.map((m) => milestoneView(s, m)),
    dispute: disputeView(s, latestDispute(s)),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** A `bank_transfer` payment's instructions; null for `api` (and for one whose custody account was not kept). */
function fundingInstructions(s: PaymentDetails): z.infer<typeof FundingInstructionsSchema> {
  if (s.funding !== 'bank_transfer' || !s.custody) return null;
  const major = (minor: bigint) => toMajor(minor, s.currency, s.amountExponent);
  const received = s.amountReceivedMinor ?? 0n;
  return {
    type: 'bank_transfer',
    iban: s.custody.iban,
    bic: s.custody.bic,
    account_holder_name: s.custody.name,
    reference: fundingReferenceOf(s.id),
    amount: major(s.amountMinor),
    currency: s.currency,
    amount_received: major(received),
    amount_remaining: major(received >= s.amountMinor ? 0n : s.amountMinor - received),
    expires_at: s.depositDeadline,
  };
}

/** The sample payment of `payment.test`: the payment's shape, with the status "test" so that no receiver mistakes it for a real one. */
export const SamplePaymentViewSchema = PaymentViewSchema.extend({ status: z.literal('test') });
export type SamplePaymentView = z.infer<typeof SamplePaymentViewSchema>;

/** A sample milestone before its deposit: nothing held or moved, no release date, no dispute. */
export const pendingMilestone = (id: string, amount: number, recipientEmail: string) =>
  ({
    id,
    reference: null,
    description: null,
    amount,
    recipient_email: recipientEmail,
    status: 'pending_deposit',
    amount_held: 0,
    amount_released: 0,
    amount_refunded: 0,
    fee_collected: 0,
    release_at: null,
    dispute: null,
  }) as const;

/** The one sample payment `payment.test` carries (docs/webhooks.md): 10.50 USD, nothing held, dated now. */
export function samplePayment(livemode: boolean, now: string): SamplePaymentView {
  return SamplePaymentViewSchema.parse({
    id: 'pay_test',
    object: 'payment',
    amount: 10.5,
    currency: 'USD',
    platform_fee: 0,
    amount_held: 0,
    amount_released: 0,
    amount_refunded: 0,
    fee_collected: 0,
    status: 'test',
    payer_email: 'payer@example.com',
    recipient_email: 'recipient@example.com',
    description: 'Sample payment for payment.test',
    metadata: {},
    livemode,
    deposit_deadline: now,
    auto_release_after_seconds: null,
    funding: 'api',
    funding_reference: fundingReferenceOf('pay_test'),
    funding_instructions: null,
    funded_by: null,
    milestones: [pendingMilestone('ms_test', 10.5, 'recipient@example.com')],
    dispute: null,
    created_at: now,
    updated_at: now,
  });
}
