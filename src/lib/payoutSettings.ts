/** The live payouts' settings of src/config.ts: their outbox, their batches, bank files, the custody account (docs/payouts.md). */
import path from 'node:path';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { duration } from './settingValues';

export const payoutSettings = {
  /** Where live payouts' pain.001 files are written for the bank's channel to collect (docs/payouts.md, "Live mode"). */
  PAYOUT_OUTBOX_DIR: z
    .string()
    .min(1)
    .default(path.resolve(__dirname, '..', '..', '.data', 'payout-outbox')),
  /** Pending live payouts are written as one file at most this often. */
  PAYOUT_BATCH_INTERVAL: duration('1h').refine((v) => v >= 1000, 'PAYOUT_BATCH_INTERVAL must be at least 1s'),
  /** The largest bank file `POST /api/v1/bank_files` reads (bytes; default 10 MB). */
  BANK_FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(1024 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  /** The custody account live payouts are debited from: its holder's name (ISO 20022 Max140Text). */
  CUSTODY_ACCOUNT_NAME: z.string().trim().min(1).max(140).optional(),
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
};
