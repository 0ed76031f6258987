/**
 * A bank file as `POST /api/v1/bank_files` answers it (docs/payouts.md, "Live mode"): its message,
 * what each entry did to which payout, and what changed none, for an operator. One zod schema, for
 * the type and the OpenAPI document.
 */
import { z } from 'zod';
import { type BankFilePlan, UNMATCHED_REASONS } from './bankFileMatch.format';
import { BANK_FILE_MESSAGES, BANK_FILE_OUTCOMES, type BankFileMessageType } from './bankFileRead.format';
import { majorOf } from '../ledger/amountText.rules';

const MESSAGE_TYPES = Object.keys(BANK_FILE_MESSAGES) as [BankFileMessageType, ...BankFileMessageType[]];

const amount = z.number().nullable().describe('Major units; null when the bank stated none for it');

export const BankFileViewSchema = z.object({
  id: z.string().describe('bf_…'),
  object: z.literal('bank_file'),
  message_id: z.string().describe("The file's MsgId: a file is taken once by it"),
  message_type: z.enum(MESSAGE_TYPES),
  entries: z.array(
    z.object({
      end_to_end_id: z.string(),
      amount,
      currency: z.string().nullable(),
      outcome: z.enum(BANK_FILE_OUTCOMES),
      payout: z.string().describe('po_…'),
    }),
  ),
  unmatched: z.array(
    z.object({
      end_to_end_id: z.string().nullable(),
      amount,
      currency: z.string().nullable(),
      reason: z.enum(UNMATCHED_REASONS).describe('Why the entry changed no payout (docs/payouts.md, "Matching a file to payouts")'),
    }),
  ),
});
export type BankFileView = z.infer<typeof BankFileViewSchema>;

/** What a stored bank file holds: its message and the plan that was applied (src/payouts/bankFileMatch.format.ts), amounts in minor units. */
export interface BankFileFields extends Pick<BankFilePlan, 'entries' | 'unmatched'> {
  id: string;
  messageId: string;
  messageType: BankFileMessageType;
}

/** Major units through the exponent of each entry's currency (`exponentOf`: the ISO 4217 table's, handed in so this stays table-free). */
export function bankFileView(f: BankFileFields, exponentOf: (currency: string) => number): BankFileView {
  const major = (minor: bigint | null, currency: string | null) =>
    minor === null || currency === null ? null : majorOf(minor, exponentOf(currency));
  return {
    id: f.id,
    object: 'bank_file',
    message_id: f.messageId,
    message_type: f.messageType,
    entries: f.entries.map((e) => ({
      end_to_end_id: e.endToEndId,
      amount: major(e.amount, e.currency),
      currency: e.currency,
      outcome: e.outcome,
      payout: e.payoutId,
    })),
    unmatched: f.unmatched.map((u) => ({
      end_to_end_id: u.endToEndId,
      amount: major(u.amount, u.currency),
      currency: u.currency,
      reason: u.reason,
    })),
  };
}
