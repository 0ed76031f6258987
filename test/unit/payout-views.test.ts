/** The bank account create body (src/api/schemas/bankAccounts.ts) and the bank account and payout views (src/views). */
import { describe, expect, it } from 'vitest';
import { CreateBankAccountRequest } from '../../src/api/schemas/bankAccounts';
import { BankAccountViewSchema, bankAccountView } from '../../src/views/bankAccountView';
import { PayoutViewSchema, payoutView } from '../../src/views/payoutView';

const refusals = (body: unknown) => {
  const parsed = CreateBankAccountRequest.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join('.'), i.message]);
};
const holder = { account_holder_name: 'Jane Doe' };

describe('the create body of a bank account', () => {
  it('takes an IBAN, or US numbers, in any case of country and currency', () => {
    expect(
      CreateBankAccountRequest.parse({ ...holder, country: 'de', currency: 'eur', iban: 'DE94 3704 0044 0532 0100 00' }),
    ).toMatchObject({
      country: 'DE',
      currency: 'EUR',
    });
    expect(refusals({ ...holder, country: 'US', currency: 'usd', routing_number: '110000000', account_number: '000123450000' })).toEqual(
      [],
    );
  });

  it('names the field of each refusal', () => {
    expect(refusals({ ...holder, country: 'DE', currency: 'EUR', iban: 'DE94370400440532010001' })).toEqual([
      ['iban', 'iban fails its check digits (mod 97): a character is mistyped'],
    ]);
    expect(refusals({ ...holder, country: 'US', currency: 'USD', routing_number: '110000001', account_number: '000123450000' })).toEqual([
      ['routing_number', 'routing_number is not a valid ABA routing number (its checksum or its first two digits)'],
    ]);
    expect(refusals({ ...holder, country: 'DE', currency: 'XAU', iban: 'DE94370400440532010000' })[0]?.[0]).toBe('currency');
    expect(refusals({ ...holder, country: 'DEU', currency: 'EUR', iban: 'DE94370400440532010000' })[0]?.[0]).toBe('country');
    expect(refusals({ country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' })[0]?.[0]).toBe('account_holder_name');
    expect(
      refusals({ ...holder, account_holder_name: 'x'.repeat(141), country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' })[0]?.[0],
    ).toBe('account_holder_name');
    expect(refusals({ ...holder, country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000', bic: 'COBADEFFXXX' })[0]?.[1]).toMatch(
      /bic/,
    );
  });
});

describe('views', () => {
  it('a bank account shows last4 and the fingerprint, never the number', () => {
    const view = bankAccountView({
      id: 'ba_1',
      recipient_id: 'rcp_1',
      account_holder_name: 'Jane Doe',
      country: 'DE',
      currency: 'EUR',
      last4: '0000',
      fingerprint: 'Xq3vT0aZ9bN1cK2m',
      status: 'new',
      default_for_currency: true,
      ...({ number_sealed: 'v1.a.b.c', iban: 'DE94370400440532010000' } as object),
    });
    expect(BankAccountViewSchema.strict().parse(view)).toEqual(view);
    expect(JSON.stringify(view)).not.toMatch(/DE94|v1\./);
    expect(view).toMatchObject({ object: 'bank_account', recipient: 'rcp_1', last4: '0000' });
  });

  it('a payout shows its amount in major units through its exponent, and its failure message from its code', () => {
    const row = {
      id: 'po_1',
      recipient_id: 'rcp_1',
      bank_account_id: 'ba_1',
      amount: '105099',
      currency: 'EUR',
      amount_exponent: 2,
      status: 'failed' as const,
      failure_code: 'no_account' as const,
      end_to_end_id: 'po-1',
      created_at: new Date('2026-11-27T09:30:00Z'),
      livemode: false,
    };
    const view = payoutView(row);
    expect(PayoutViewSchema.strict().parse(view)).toEqual(view);
    expect(view).toMatchObject({
      object: 'payout',
      amount: 1050.99,
      failure_code: 'no_account',
      failure_message: 'The bank account details do not match an account at the bank.',
      created_at: '2026-11-27T09:30:00.000Z',
    });
    expect(payoutView({ ...row, amount: 1000n, currency: 'JPY', amount_exponent: 0, status: 'paid', failure_code: null })).toMatchObject({
      amount: 1000,
      failure_message: null,
    });
  });
});
