/** The live payouts' settings of src/platform/config.ts: their outbox, their batches, the bank's inbox and files, the custody account (docs/payouts.md, docs/bank.md). */
import path from 'node:path';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { duration } from './settingValues';

export const payoutSettings = {
  /** Where live payouts' pain.001 files are written for the bank's channel to collect (docs/payouts.md, "Live mode"). */
  PAYOUT_OUTBOX_DIR: z
    .string()
    .min(1)
    .default(path.resolve(__dirname, '..', '..', '..', '.data', 'payout-outbox')),
  /** Pending live payouts are written as one file at most this often. */
  PAYOUT_BATCH_INTERVAL: duration('1h').refine((v) => v >= 1000, 'PAYOUT_BATCH_INTERVAL must be at least 1s'),
  /**
   * Where the bank's files arrive (docs/bank.md, "The inbox"): a host-to-host or EBICS client drops
   * them here; a Temporal Schedule takes each new one and moves it to `taken/` or `rejected/`.
   */
  BANK_INBOX_DIR: z
    .string()
    .min(1)
    .default(path.resolve(__dirname, '..', '..', '..', '.data', 'bank-inbox')),
  /** How often the inbox is looked at. */
  BANK_INBOX_INTERVAL: duration('1 min').refine((v) => v >= 1000, 'BANK_INBOX_INTERVAL must be at least 1s'),
  /** How long a taker holds a bank file it is taking: one killed half-way leaves it to the next after this. */
  BANK_INBOX_TAKE_LEASE: duration('5 min').refine((v) => v >= 1000, 'BANK_INBOX_TAKE_LEASE must be at least 1s'),
  /** The most elements a bank file may hold; a file with more is rejected unread (docs/bank.md, "Limits"). */
  BANK_FILE_MAX_ELEMENTS: z.coerce.number().int().positive().max(10_000_000).default(500_000),
  /** The most entries (transactions) a bank file may name; a file with more is rejected. */
  BANK_FILE_MAX_ENTRIES: z.coerce.number().int().positive().max(1_000_000).default(50_000),
  /** The largest bank file the inbox reads (bytes; default 10 MB); a larger one is rejected unread. */
  BANK_FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(1024 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  /** The custody account live payouts are debited from: its holder's name (ISO 20022 Max140Text). */
  CUSTODY_ACCOUNT_NAME: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().min(1).max(140).optional()),
  /** Its IBAN, checked (mod 97, the country's format) and kept in electronic format. */
  CUSTODY_ACCOUNT_IBAN: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      const iban = electronicFormatIBAN(text) ?? '';
      if (!isValidIBAN(iban)) {
        ctx.addIssue({ code: 'custom', message: `not a valid IBAN: "${text}"` });
        return z.NEVER;
      }
      return iban;
    }),
  /** Its bank's BIC (8 or 11 characters). */
  CUSTODY_ACCOUNT_BIC: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      const bic = text.trim().toUpperCase();
      if (!isValidBIC(bic)) {
        ctx.addIssue({ code: 'custom', message: `not a valid BIC: "${text}" (8 or 11 characters, e.g. COBADEFFXXX)` });
        return z.NEVER;
      }
      return bic;
    }),
  /**
   * The identifier the bank gave the custody account's holder as initiating party (an EBICS customer
   * or SEPA creditor id, `InitgPty/Id/OrgId/Othr/Id`): a reference of at most 35 characters of the SEPA set.
   */
  CUSTODY_ACCOUNT_INITIATOR_ID: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9/\-?:().,'+ ]{1,35}$/,
        "at most 35 characters of the SEPA character set (letters, digits, / - ? : ( ) . , ' + and space)",
      )
      .optional(),
  ),
};
