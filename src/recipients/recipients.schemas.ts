/** The recipient routes' schemas (src/recipients/recipients.routes.ts). */
import { z } from 'zod';
import { RECIPIENT_TYPES, VERIFICATION_STATUSES, isCountry } from './recipients.rules';
import { RecipientBalanceViewSchema, RecipientViewSchema } from './recipient.view';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { email, listOf, listQuery, text } from '../platform/http/common.schemas';

const metadata = z
  .record(text(40).min(1), text(500))
  .refine((m) => Object.keys(m).length <= 20, 'metadata can have at most 20 keys')
  .refine((m) => !Object.hasOwn(m, '__proto__'), '"__proto__" cannot be a metadata key')
  .describe('Up to 20 string values');

const name = text(200).min(1).nullable().describe("The recipient's name, as the platform knows it");

export const CreateRecipientRequest = component(
  'CreateRecipientRequest',
  z
    .object({
      email,
      country: z
        .string()
        .refine(isCountry, 'country must be an ISO 3166-1 alpha-2 code, upper case (e.g. FR, US)')
        .describe('ISO 3166-1 alpha-2, e.g. FR'),
      type: z.enum(RECIPIENT_TYPES).optional().describe('individual (default) or company'),
      name: name.optional(),
      metadata: metadata.optional(),
    })
    .strict(),
  S.createRecipient,
);

export const UpdateRecipientRequest = component(
  'UpdateRecipientRequest',
  z.object({ email: email.optional(), name: name.optional(), metadata: metadata.optional() }).strict(),
  { name: 'Vintage Cameras SAS' },
);

const requirementList = z.array(text(100).min(1)).max(50);

export const RecipientVerificationRequest = component(
  'RecipientVerificationRequest',
  z
    .object({
      status: z.enum(VERIFICATION_STATUSES).describe('The outcome the platform (or its verification vendor) reports'),
      requirements: z
        .object({
          currently_due: requirementList.optional(),
          past_due: requirementList.optional(),
          pending_verification: requirementList.optional(),
          errors: z
            .array(z.object({ requirement: text(100).min(1), reason: text(500).min(1) }).strict())
            .max(50)
            .optional(),
        })
        .strict()
        .optional()
        .describe('What is still due; omitted lists are empty. payouts_enabled needs status verified and past_due empty'),
      disabled_reason: text(200).min(1).nullable().optional().describe('Why payouts are disabled, in the platform’s words'),
    })
    .strict(),
  { status: 'verified' },
);

export const ListRecipientsQuery = listQuery('rcp', 'A recipient', {});

export const Recipient = component('Recipient', RecipientViewSchema, S.recipient);

export const RecipientList = component('RecipientList', listOf(Recipient), S.list(S.recipient));

/** `as_of`: the balances as they stood at that instant, summed from the ledger's entries. */
export const AsOfQuery = z.strictObject({
  as_of: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('ISO 8601: the balances as they stood at that instant (from the entries); default now, as kept'),
});

export const RecipientBalance = component('RecipientBalance', RecipientBalanceViewSchema, S.recipientBalance);
