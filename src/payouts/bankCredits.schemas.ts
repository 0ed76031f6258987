/** The bank credit routes' schemas (docs/bank.md, "Unapplied credits"): the list, and test mode's simulated transfer. */
import { z } from 'zod';
import { currencyRefusal, isCurrency, toMinor } from '../ledger/money.rules';
import { BANK_CREDIT_EVENTS, BANK_CREDIT_STATUSES, type BankCreditEvent } from './bankCredit.rules';
import { BankCreditViewSchema } from './bankCredit.view';
import { component, exampleOf } from '../platform/http/components';
import { listOf, listQuery } from '../platform/http/common.schemas';
import { webhookSchemaName } from '../webhooks/webhooks.schemas';
import { idPattern } from '../platform/http/parse';

export const BankCredit = component('BankCredit', BankCreditViewSchema, {
  id: 'bc_01JDZ6R0A1B2C3D4E5F6G7H8J9',
  object: 'bank_credit',
  amount: 125.5,
  currency: 'EUR',
  reference: 'RF67Z3N4X5Y6Z7A8B9C0D1E2F',
  status: 'applied',
  payment: 'pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F',
  bank_file: null,
  booked_at: '2026-11-24',
  debtor_last4: null,
  livemode: false,
  created_at: '2026-11-24T10:00:00.000Z',
});

export const BankCreditList = component('BankCreditList', listOf(BankCredit), {
  object: 'list',
  data: [exampleOf(BankCredit)],
  has_more: false,
});

/** `bank_credit.*`'s body (docs/webhooks.md, "Bank credit events"): the credit in `data`, its version in `sequence`. */
export const BANK_CREDIT_ENVELOPES = Object.fromEntries(
  BANK_CREDIT_EVENTS.map((event) => [
    event,
    component(
      webhookSchemaName(event),
      z.object({
        event: z.literal(event),
        bank_credit_id: z.string(),
        timestamp: z.string().describe('When the credit took this step, ISO 8601 UTC'),
        sequence: z
          .number()
          .int()
          .describe(
            "The credit's version (received and applied at once share it, received first): ignore an event older than one you applied",
          ),
        data: BankCredit.describe('The credit as it was right after this step; its payer as debtor_last4 only'),
      }),
      {
        event,
        bank_credit_id: 'bc_01JDZ6R0A1B2C3D4E5F6G7H8J9',
        timestamp: '2026-11-24T10:00:00.000Z',
        sequence: 1,
        data: exampleOf(BankCredit),
      },
    ),
  ]),
) as unknown as Record<BankCreditEvent, z.ZodType>;

export const ListBankCreditsQuery = listQuery('bc', 'A bank credit', {
  status: z.enum(BANK_CREDIT_STATUSES).optional().describe('Only credits in this status'),
});

/** `{reference, amount, currency}`: a simulated credit booked today, the amount in the currency's minor units' precision. */
export const SimulatedTransferRequest = component(
  'SimulatedTransferRequest',
  z
    .object({
      reference: z
        .string()
        .min(1)
        .max(140)
        .describe("The creditor reference the payer wrote: a payment's funding_reference, or anything else"),
      amount: z.number({ message: 'amount must be a number in major units, e.g. 10.50' }).describe('Major units'),
      currency: z.preprocess(
        (v) => (typeof v === 'string' ? v.toUpperCase() : v),
        z.string().regex(/^[A-Z]{3}$/, 'currency must be a three-letter ISO 4217 code'),
      ),
    })
    .strict()
    .superRefine((body, ctx) => {
      if (!isCurrency(body.currency)) {
        ctx.addIssue({ code: 'custom', path: ['currency'], message: currencyRefusal(body.currency) });
        return;
      }
      const amount = toMinor(body.amount, body.currency);
      if (!amount.ok) ctx.addIssue({ code: 'custom', path: ['amount'], message: amount.message });
    })
    .transform((body) => {
      const amount = toMinor(body.amount, body.currency);
      if (!amount.ok) throw new Error(amount.message);
      return { reference: body.reference, currency: body.currency, amountMinor: amount.minor };
    }),
  { reference: 'RF67Z3N4X5Y6Z7A8B9C0D1E2F', amount: 125.5, currency: 'EUR' },
);

export const SimulatedTransfer = component(
  'SimulatedTransfer',
  z.object({
    object: z.literal('bank_transfer'),
    bank_credits: z.array(BankCredit).describe('What the credit became: the part a payment took, and any unapplied credit'),
  }),
  { object: 'bank_transfer', bank_credits: [exampleOf(BankCredit)] },
);

/** `{payment}`: the payment (pay_…) an unapplied credit is applied to. */
export const ApplyBankCreditRequest = component(
  'ApplyBankCreditRequest',
  z.object({ payment: z.string().regex(idPattern('pay'), 'payment must be a payment id (pay_…)') }).strict(),
  { payment: 'pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F' },
);
