/**
 * The ledger as the API shows it (docs/money.md): entries with their postings, and the balance per
 * currency, in major units. One zod schema each, for the type and the OpenAPI document.
 */
import { z } from 'zod';
import { ENTRY_TYPES, type LedgerAccount, LEDGER_ACCOUNTS, balanceOf } from './ledger.rules';
import { toMajor } from './money.rules';
import { defaultMilestoneId } from '../payments/milestones.rules';

export const LedgerEntryViewSchema = z.object({
  id: z
    .string()
    .describe(
      "le_ + 26 characters, derived from the payment, its version and (with milestones) the milestone, or from a recipient's movement",
    ),
  object: z.literal('ledger_entry'),
  payment_id: z
    .string()
    .nullable()
    .describe("The payment whose step moved the money; null for a recipient's own movement (make_available)"),
  milestone_id: z
    .string()
    .nullable()
    .describe('The milestone whose money moved (a payment without milestones has one: ms_ + its ULID); null without a payment'),
  recipient_id: z.string().nullable().describe('The recipient whose accounts the entry credits or moves between, if any'),
  version: z.number().describe("The payment's version this movement made (its history seq), or the recipient's"),
  type: z.enum(ENTRY_TYPES),
  currency: z.string(),
  livemode: z.boolean(),
  created_at: z.string(),
  postings: z
    .array(
      z.object({
        account: z.enum(LEDGER_ACCOUNTS),
        address: z
          .string()
          .describe('The account: escrow:pay_… (a payment’s custody), recipient:rcp_…:pending|available|in_transit|paid_out, or the kind'),
        amount: z.number().describe('Major units, signed: the postings sum to 0'),
      }),
    )
    .describe('Every posting of the entry; they sum to zero'),
});
type LedgerEntryView = z.infer<typeof LedgerEntryViewSchema>;

export function ledgerEntryView(e: {
  id: string;
  payment_id: string | null;
  milestone_id: string | null;
  recipient_id?: string | null;
  version: number;
  type: (typeof ENTRY_TYPES)[number];
  currency: string;
  exponent: number;
  livemode: boolean;
  created_at: Date;
  postings: { ledger_account: LedgerAccount; address: string; amount_minor: bigint }[];
}): LedgerEntryView {
  return {
    id: e.id,
    object: 'ledger_entry',
    payment_id: e.payment_id,
    // Null on an entry written before milestones: its payment's one milestone.
    milestone_id: e.milestone_id ?? (e.payment_id === null ? null : defaultMilestoneId(e.payment_id)),
    recipient_id: e.recipient_id ?? null,
    version: e.version,
    type: e.type,
    currency: e.currency,
    livemode: e.livemode,
    created_at: e.created_at.toISOString(),
    postings: e.postings.map((p) => ({
      account: p.ledger_account,
      address: p.address,
      amount: toMajor(p.amount_minor, e.currency, e.exponent),
    })),
  };
}

export const BalanceViewSchema = z.object({
  object: z.literal('balance'),
  livemode: z.boolean(),
  balances: z.array(
    z.object({
      currency: z.string(),
      deposited: z.number().describe('Paid in by payers; = held + released + refunded'),
      held: z.number().describe('In custody now'),
      released: z.number().describe("Left custody to recipients, before fees: the sum of payments' amount_released; = released_net + fees"),
      released_net: z.number().describe('What recipients are owed of released, after fees'),
      refunded: z.number().describe('Back to payers'),
      fees: z.number().describe("The platform's fees collected, out of released"),
    }),
  ),
});
export type BalanceView = z.infer<typeof BalanceViewSchema>;

/**
 * Balances per currency. A currency's amounts stored with different exponents (payments made before
 * exponents were kept) are brought to the largest one first: exact, since that only multiplies.
 */
export function balanceView(
  livemode: boolean,
  rows: { currency: string; exponent: number; ledger_account: LedgerAccount; balance_minor: bigint }[],
): BalanceView {
  const currencies = [...new Set(rows.map((r) => r.currency))].sort();
  return {
    object: 'balance',
    livemode,
    balances: currencies.map((currency) => {
      const mine = rows.filter((r) => r.currency === currency);
      const exponent = Math.max(...mine.map((r) => r.exponent));
      const accounts: Partial<Record<LedgerAccount, bigint>> = {};
      for (const r of mine) {
        accounts[r.ledger_account] = (accounts[r.ledger_account] ?? 0n) + r.balance_minor * 10n ** BigInt(exponent - r.exponent);
      }
      const b = balanceOf(accounts);
      const major = (minor: bigint) => toMajor(minor, currency, exponent);
      return {
        currency,
        deposited: major(b.deposited),
        held: major(b.held),
        released: major(b.released),
        released_net: major(b.releasedNet),
        refunded: major(b.refunded),
        fees: major(b.fees),
      };
    }),
  };
}
