/** The payment as the API and webhooks show it, and its sample for `payment.test`. */
import { z } from 'zod';
import { toMajor } from '../domain/money';
import { PAYMENT_STATUSES, type PaymentState, amountsOf, moneyOf } from '../domain/payment';

/**
 * The payment as the API and webhook `data` show it: amounts in major units (docs/money.md).
 * The one description of that shape: the type and the OpenAPI schema (src/api/schemas/payments.ts) come
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
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  livemode: z.boolean(),
  deposit_deadline: z.string(),
  auto_release_after_seconds: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PaymentView = z.infer<typeof PaymentViewSchema>;

export function paymentView(s: PaymentState): PaymentView {
  const major = (minor: bigint | string) => toMajor(minor, s.currency, s.amountExponent);
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
    description: s.description,
    metadata: s.metadata,
    livemode: s.livemode,
    deposit_deadline: s.depositDeadline,
    auto_release_after_seconds: s.autoReleaseAfterSeconds,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** The sample payment of `payment.test`: the payment's shape, with the status "test" so that no receiver mistakes it for a real one. */
export const SamplePaymentViewSchema = PaymentViewSchema.extend({ status: z.literal('test') });
export type SamplePaymentView = z.infer<typeof SamplePaymentViewSchema>;

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
    created_at: now,
    updated_at: now,
  });
}
