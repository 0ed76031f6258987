/** The bank account routes' schemas (docs/payouts.md, "Bank accounts"): the create body, checked whole, and the answer. */
import { z } from 'zod';
import { checkBankAccountNumber } from './bankAccounts.rules';
import { currencyRefusal, isCurrency } from '../ledger/money.rules';
import { SEPA_NAME_MAX, firstOutsideSepa } from './sepaText.rules';
import { BankAccountViewSchema } from './bankAccount.view';
import { component, exampleOf } from '../platform/http/components';
import { text, wholeListOf } from '../platform/http/common.schemas';

const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);

/**
 * `{account_holder_name, country, currency, iban}`, or for a US account `{…, routing_number,
 * account_number}`: the number checked by the maintained libraries (src/payouts/bankAccounts.rules.ts),
 * each refusal naming its field.
 */
export const CreateBankAccountRequest = component(
  'CreateBankAccountRequest',
  z
    .object({
      account_holder_name: text(SEPA_NAME_MAX)
        .min(1, 'account_holder_name must not be empty')
        .superRefine((name, ctx) => {
          const outside = firstOutsideSepa(name);
          if (outside) {
            ctx.addIssue({
              code: 'custom',
              message:
                `account_holder_name must be of the SEPA character set (a-z, A-Z, 0-9, space and / - ? : ( ) . , ' +), ` +
                `as the bank's credit transfer file carries it; ${outside} is not (write e.g. ü as ue)`,
            });
          }
        })
        .describe(
          "As the bank knows it, in the SEPA character set (letters a-z and A-Z, digits, space and / - ? : ( ) . , ' +), at most 70 characters",
        ),
      country: z.preprocess(upper, z.string().regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code, e.g. DE')),
      currency: z.preprocess(upper, z.string().regex(/^[A-Z]{3}$/, 'currency must be a three-letter ISO 4217 code')),
      iban: z.string().max(64).optional().describe('Any account outside the US; spaces allowed'),
      routing_number: z.string().max(9).optional().describe('US accounts: the 9-digit ABA routing number'),
      account_number: z.string().max(17).optional().describe('US accounts: 4 to 17 digits'),
    })
    .strict()
    .superRefine((body, ctx) => {
      if (!isCurrency(body.currency)) {
        ctx.addIssue({ code: 'custom', path: ['currency'], message: currencyRefusal(body.currency) });
        return;
      }
      const check = checkBankAccountNumber(body);
      if (!check.ok) ctx.addIssue({ code: 'custom', path: [check.problem.field], message: check.problem.message });
    }),
  { account_holder_name: 'Jane Doe', country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' },
);

export const BankAccount = component('BankAccount', BankAccountViewSchema, {
  id: 'ba_01JDZ6Q4W8M3T5V7X9Z1B3D5F7',
  object: 'bank_account',
  recipient: 'rcp_01JDZ6Q4W8M3T5V7X9Z1B3D5F8',
  account_holder_name: 'Jane Doe',
  country: 'DE',
  currency: 'EUR',
  last4: '0000',
  fingerprint: 'Xq3vT0aZ9bN1cK2m',
  status: 'new',
  default_for_currency: true,
});

export const BankAccountList = component('BankAccountList', wholeListOf(BankAccount), {
  object: 'list',
  data: [exampleOf(BankAccount)],
  has_more: false,
});
