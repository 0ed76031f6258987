/** A recipient as the API and its `recipient.updated` webhook show it (docs/concepts.md, "Recipients"), and its balance. */
import { z } from 'zod';
import { RECIPIENT_TYPES, type RecipientState, VERIFICATION_STATUSES } from './recipients.rules';
import type { RecipientBalance } from '../ledger/ledger.rules';
import { toMajor } from '../ledger/money.rules';

const RequirementsSchema = z.object({
  currently_due: z.array(z.string()).describe('What the platform must still collect'),
  past_due: z.array(z.string()).describe('What is overdue: payouts stay disabled while any is'),
  pending_verification: z.array(z.string()).describe('What the verification vendor is still examining'),
  errors: z.array(z.object({ requirement: z.string(), reason: z.string() })).describe('Why something submitted was refused'),
});

export const RecipientViewSchema = z.object({
  id: z.string().describe('rcp_ + ULID'),
  object: z.literal('recipient'),
  email: z.string(),
  name: z.string().nullable(),
  country: z.string().describe('ISO 3166-1 alpha-2'),
  type: z.enum(RECIPIENT_TYPES),
  metadata: z.record(z.string(), z.string()),
  livemode: z.boolean(),
  verification: z.object({
    status: z.enum(VERIFICATION_STATUSES),
    requirements: RequirementsSchema,
    disabled_reason: z.string().nullable(),
  }),
  payouts_enabled: z.boolean().describe('verification.status is verified and requirements.past_due is empty'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RecipientView = z.infer<typeof RecipientViewSchema>;

export function recipientView(r: RecipientState): RecipientView {
  return {
    id: r.id,
    object: 'recipient',
    email: r.email,
    name: r.name,
    country: r.country,
    type: r.type,
    metadata: r.metadata,
    livemode: r.livemode,
    verification: {
      status: r.verification.status,
      requirements: r.verification.requirements,
      disabled_reason: r.verification.disabledReason,
    },
    payouts_enabled: r.payoutsEnabled,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** The body of a recipient's event (docs/webhooks.md): `sequence` is the recipient's version. */
export interface RecipientEnvelope {
  event: 'recipient.updated';
  recipient_id: string;
  timestamp: string;
  sequence: number;
  data: RecipientView;
}

export function recipientEnvelope(r: RecipientState): RecipientEnvelope {
  return { event: 'recipient.updated', recipient_id: r.id, timestamp: r.updatedAt, sequence: r.version, data: recipientView(r) };
}

export const RecipientBalanceViewSchema = z.object({
  object: z.literal('recipient_balance'),
  recipient: z.string(),
  balances: z.array(
    z.object({
      currency: z.string(),
      pending: z
        .number()
        .describe("Released to it while its payouts were not enabled, or in live mode before its payment's funding was booked at the bank"),
      available: z.number().describe('Payable to it'),
      in_transit: z.number().describe('On its way to its bank'),
      paid_out: z.number().describe('Paid to its bank'),
    }),
  ),
});
export type RecipientBalanceView = z.infer<typeof RecipientBalanceViewSchema>;

/** Per currency, in major units; a currency kept at two exponents is shown at the larger (exact). */
export function recipientBalanceView(
  recipientId: string,
  rows: { currency: string; exponent: number; balance: RecipientBalance; amount: bigint }[],
): RecipientBalanceView {
  const currencies = [...new Set(rows.map((r) => r.currency))].sort();
  return {
    object: 'recipient_balance',
    recipient: recipientId,
    balances: currencies.map((currency) => {
      const mine = rows.filter((r) => r.currency === currency);
      const exponent = Math.max(...mine.map((r) => r.exponent));
      const sum = (b: RecipientBalance) =>
        toMajor(
          mine.filter((r) => r.balance === b).reduce((t, r) => t + r.amount * 10n ** BigInt(exponent - r.exponent), 0n),
          currency,
          exponent,
        );
      return { currency, pending: sum('pending'), available: sum('available'), in_transit: sum('in_transit'), paid_out: sum('paid_out') };
    }),
  };
}
