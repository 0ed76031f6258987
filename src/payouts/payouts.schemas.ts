/** The payout routes' schemas (docs/payouts.md): the create body, checked whole, and the payout and bank file answers. */
import { z } from 'zod';
import { currencyRefusal, isCurrency, toMinor } from '../ledger/money.rules';
import { PAYOUT_EVENTS, PAYOUT_STATUSES, type PayoutEvent } from './payout.rules';
import { BankFileViewSchema } from './bankFile.view';
import { PayoutViewSchema } from './payout.view';
import { component, exampleOf } from '../platform/http/components';
import { idPattern } from '../platform/http/parse';
import { listOf, listQuery } from '../platform/http/common.schemas';
import { webhookSchemaName } from '../webhooks/webhooks.schemas';

/**
 * `{recipient, currency, amount?, bank_account?}`: the amount in major units with no more
 * fractional digits than the currency has (absent: everything available), each refusal naming its
 * field. Whether the recipient may be paid is the use case's (src/payouts/payout.rules.ts, checkPayoutCreation).
 */
export const CreatePayoutRequest = component(
  'CreatePayoutRequest',
  z
    .object({
      recipient: z.string().regex(idPattern('rcp'), 'recipient must be a recipient id (rcp_…)'),
      currency: z.preprocess(
        (v) => (typeof v === 'string' ? v.toUpperCase() : v),
        z.string().regex(/^[A-Z]{3}$/, 'currency must be a three-letter ISO 4217 code'),
      ),
      amount: z
        .number({ message: 'amount must be a number in major units, e.g. 10.50' })
        .optional()
        .describe("Major units; default: everything available in the recipient's balance in the currency"),
      bank_account: z
        .string()
        .regex(idPattern('ba'), 'bank_account must be a bank account id (ba_…)')
        .optional()
        .describe("Default: the recipient's default bank account for the currency"),
    })
    .strict()
    .superRefine((body, ctx) => {
      if (!isCurrency(body.currency)) {
        ctx.addIssue({ code: 'custom', path: ['currency'], message: currencyRefusal(body.currency) });
        return;
      }
      if (body.amount === undefined) return;
      const amount = toMinor(body.amount, body.currency);
      if (!amount.ok) ctx.addIssue({ code: 'custom', path: ['amount'], message: amount.message });
    }),
  { recipient: 'rcp_01JDZ6Q4W8M3T5V7X9Z1B3D5F8', currency: 'EUR', amount: 10.5 },
);

export const ListPayoutsQuery = listQuery('po', 'A payout', {
  recipient: z.string().regex(idPattern('rcp'), 'must be a recipient id').optional().describe("Only this recipient's payouts"),
  status: z.enum(PAYOUT_STATUSES).optional().describe('Only payouts in this status'),
});

export const Payout = component('Payout', PayoutViewSchema, {
  id: 'po_01JDZ6R0A1B2C3D4E5F6G7H8J9',
  object: 'payout',
  recipient: 'rcp_01JDZ6Q4W8M3T5V7X9Z1B3D5F8',
  bank_account: 'ba_01JDZ6Q4W8M3T5V7X9Z1B3D5F7',
  amount: 10.5,
  currency: 'EUR',
  status: 'pending',
  failure_code: null,
  failure_message: null,
  end_to_end_id: 'po-01JDZ6R0A1B2C3D4E5F6G7H8J9',
  created_at: '2026-11-27T09:30:00.000Z',
  livemode: false,
});

export const BankFile = component('BankFile', BankFileViewSchema, {
  id: 'bf_01JDZ7A0B1C2D3E4F5G6H7J8K9',
  object: 'bank_file',
  message_id: 'NTF-20261128-0093',
  message_type: 'camt.054.001.08',
  entries: [
    {
      end_to_end_id: 'po-01JDZ6R0A1B2C3D4E5F6G7H8J9',
      amount: 10.5,
      currency: 'EUR',
      outcome: 'paid',
      payout: 'po_01JDZ6R0A1B2C3D4E5F6G7H8J9',
    },
  ],
  unmatched: [{ end_to_end_id: null, amount: 2.5, currency: 'EUR', reason: 'no_end_to_end_id' }],
});

export const PayoutList = component('PayoutList', listOf(Payout), { object: 'list', data: [exampleOf(Payout)], has_more: false });

/** `payout.*`'s body (docs/webhooks.md): the payout in `data`, its version in `sequence`. */
export const PAYOUT_ENVELOPES = Object.fromEntries(
  PAYOUT_EVENTS.map((event) => [
    event,
    component(
      webhookSchemaName(event),
      z.object({
        event: z.literal(event),
        payout_id: z.string(),
        timestamp: z.string().describe('When the payout took this step, ISO 8601 UTC'),
        sequence: z.number().int().describe("The payout's version: ignore an event whose sequence is lower than one you applied"),
        data: Payout.describe('The payout as it was right after this step'),
      }),
      {
        event,
        payout_id: 'po_01JDZ6R0A1B2C3D4E5F6G7H8J9',
        timestamp: '2026-11-27T09:30:00.000Z',
        sequence: 1,
        data: exampleOf(Payout),
      },
    ),
  ]),
) as unknown as Record<PayoutEvent, z.ZodType>;
