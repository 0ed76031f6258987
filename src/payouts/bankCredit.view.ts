/** A credit booked at the custody account as the API shows it (docs/bank.md, "Unapplied credits"): its debtor as last4 only. */
import { z } from 'zod';
import { toMajor } from '../ledger/money.rules';
import { BANK_CREDIT_STATUSES, type BankCreditEvent, type BankCreditStatus } from './bankCredit.rules';

export const BankCreditViewSchema = z.object({
  id: z.string().describe('bc_ + ULID'),
  object: z.literal('bank_credit'),
  amount: z.number().describe('Major units'),
  currency: z.string(),
  reference: z.string().nullable().describe('The creditor reference the transfer carried, if any (RF…, spaces removed)'),
  status: z
    .enum(BANK_CREDIT_STATUSES)
    .describe('applied: a payment took it; unapplied: it funds nothing yet (apply or return it); returned: sent back to its debtor'),
  payment: z.string().nullable().describe('The payment its reference names, or that took it'),
  bank_file: z.string().nullable().describe('The bank file it came in (bf_…); null for a simulated transfer'),
  booked_at: z.string().describe("The bank's booking date (YYYY-MM-DD)"),
  debtor_last4: z.string().nullable().describe("The last four characters of the payer's account number; nothing more is shown"),
  livemode: z.boolean(),
  created_at: z.string(),
});
export type BankCreditView = z.infer<typeof BankCreditViewSchema>;

/** What the view reads of a credit's row. */
export interface BankCreditFields {
  id: string;
  amount_minor: bigint;
  currency: string;
  exponent: number;
  reference: string | null;
  status: BankCreditStatus;
  payment_id: string | null;
  bank_file_id: string | null;
  booked_on: string;
  debtor_last4: string | null;
  livemode: boolean;
  created_at: Date;
}

export function bankCreditView(c: BankCreditFields): BankCreditView {
  return {
    id: c.id,
    object: 'bank_credit',
    amount: toMajor(c.amount_minor, c.currency, c.exponent),
    currency: c.currency,
    reference: c.reference,
    status: c.status,
    payment: c.payment_id,
    bank_file: c.bank_file_id,
    booked_at: c.booked_on,
    debtor_last4: c.debtor_last4,
    livemode: c.livemode,
    created_at: c.created_at.toISOString(),
  };
}

/** A `bank_credit.*` event's body (docs/webhooks.md): the credit in `data` (its debtor as last4 only), its version in `sequence`. */
export interface BankCreditEnvelope {
  event: BankCreditEvent;
  bank_credit_id: string;
  timestamp: string;
  sequence: number;
  data: BankCreditView;
}

export function bankCreditEnvelope(
  c: BankCreditFields & { version: number; updated_at: Date },
  event: BankCreditEvent,
): BankCreditEnvelope {
  return { event, bank_credit_id: c.id, timestamp: c.updated_at.toISOString(), sequence: c.version, data: bankCreditView(c) };
}
