/**
 * A bank account as the API shows it (docs/payouts.md, "Bank accounts"): `last4` and the keyed
 * `fingerprint`, never the number. One zod schema, for the type and the OpenAPI document.
 */
import { z } from 'zod';
import { BANK_ACCOUNT_STATUSES, type BankAccountStatus } from './bankAccounts.rules';

export const BankAccountViewSchema = z.object({
  id: z.string().describe('ba_…'),
  object: z.literal('bank_account'),
  recipient: z.string().describe('The recipient it belongs to (rcp_…)'),
  account_holder_name: z.string(),
  country: z.string().describe('ISO 3166-1 alpha-2'),
  currency: z.string().describe('ISO 4217 code of what it receives'),
  last4: z.string().describe('The last four characters of the IBAN or account number'),
  fingerprint: z.string().describe('The same for the same account number within one account and mode; reveals nothing of it'),
  status: z
    .enum(BANK_ACCOUNT_STATUSES)
    .describe('errored: a payout failed for a reason of the account; errored and disabled accounts take no payout'),
  default_for_currency: z.boolean().describe('Payouts in its currency go to it unless they name another'),
});
export type BankAccountView = z.infer<typeof BankAccountViewSchema>;

/** What a bank account row holds besides its sealed number, which no view reads. */
export interface BankAccountFields {
  id: string;
  recipient_id: string;
  account_holder_name: string;
  country: string;
  currency: string;
  last4: string;
  fingerprint: string;
  status: BankAccountStatus;
  default_for_currency: boolean;
}

export function bankAccountView(b: BankAccountFields): BankAccountView {
  return {
    id: b.id,
    object: 'bank_account',
    recipient: b.recipient_id,
    account_holder_name: b.account_holder_name,
    country: b.country,
    currency: b.currency,
    last4: b.last4,
    fingerprint: b.fingerprint,
    status: b.status,
    default_for_currency: b.default_for_currency,
  };
}
