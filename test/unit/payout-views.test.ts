/** The payout and bank account bodies (src/payouts/bankAccounts.schemas.ts, payouts.ts) and the bank account, payout and bank file views (src/views). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleOf } from '../../src/platform/http/components';
import { BankAccount, CreateBankAccountRequest } from '../../src/payouts/bankAccounts.schemas';
import { BankFile, CreatePayoutRequest, ListPayoutsQuery, Payout } from '../../src/payouts/payouts.schemas';
import { planBankFile } from '../../src/payouts/bankFileMatch.format';
import { readBankFile } from '../../src/payouts/bankFileRead.format';
import { minorUnits } from '../../src/ledger/money.rules';
import { BankFileViewSchema, bankFileView } from '../../src/payouts/bankFile.view';
import { BankAccountViewSchema, bankAccountView } from '../../src/payouts/bankAccount.view';
import { PayoutViewSchema, payoutView } from '../../src/payouts/payout.view';
import { payoutRow } from '../../src/payouts/payouts.repository';

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
      amount: 105099n,
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

  it('a payout row is read once: its amount, text as PostgreSQL gives a bigint, becomes bigint, joined columns kept', () => {
    const stored = {
      id: 'po_1',
      account_id: 'acct_1',
      recipient_id: 'rcp_1',
      bank_account_id: 'ba_1',
      amount: '9007199254740993',
      currency: 'EUR',
      amount_exponent: 2,
      status: 'pending' as const,
      failure_code: null,
      end_to_end_id: 'po-1',
      message_id: null,
      clock_offset_seconds: 0,
      version: 1,
      created_at: new Date('2026-11-27T09:30:00Z'),
      updated_at: new Date('2026-11-27T09:30:00Z'),
      livemode: true,
      account_holder_name: 'Jane Doe',
    };
    const row = payoutRow(stored);
    expect(row).toEqual({ ...stored, amount: 9007199254740993n });
    expect(payoutRow(row).amount).toBe(9007199254740993n);
  });
});

describe('the create body of a payout', () => {
  const refusalsOf = (body: unknown) => {
    const parsed = CreatePayoutRequest.safeParse(body);
    return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join('.'), i.message]);
  };
  const recipient = 'rcp_01JDZ6Q4W8M3T5V7X9Z1B3D5F8';

  it('takes a recipient and a currency, an amount and a bank account optionally', () => {
    expect(CreatePayoutRequest.parse({ recipient, currency: 'eur' })).toEqual({ recipient, currency: 'EUR' });
    expect(refusalsOf({ recipient, currency: 'EUR', amount: 10.5, bank_account: 'ba_1' })).toEqual([]);
  });

  it('names the field of each refusal: ids, currency, an amount the currency cannot hold, unknown fields', () => {
    expect(refusalsOf({ recipient: 'pay_1', currency: 'EUR' })).toEqual([['recipient', 'recipient must be a recipient id (rcp_…)']]);
    expect(refusalsOf({ recipient, currency: 'EUR', bank_account: 'acct_1' })[0]?.[0]).toBe('bank_account');
    expect(refusalsOf({ recipient, currency: 'XAU' })[0]?.[0]).toBe('currency');
    expect(refusalsOf({ recipient, currency: 'EUR', amount: 10.505 })).toEqual([
      ['amount', 'EUR amounts can have at most 2 fractional digits'],
    ]);
    expect(refusalsOf({ recipient, currency: 'JPY', amount: 0 })).toEqual([['amount', 'amount must be greater than 0']]);
    expect(refusalsOf({ recipient, currency: 'EUR', amount: '10' })[0]?.[0]).toBe('amount');
    expect(refusalsOf({ recipient, currency: 'EUR', destination: 'x' })[0]?.[1]).toMatch(/destination/);
    expect(ListPayoutsQuery.safeParse({ status: 'lost' }).success).toBe(false);
  });
});

describe('examples', () => {
  it('each component example is what its schema accepts', () => {
    for (const schema of [CreateBankAccountRequest, BankAccount, CreatePayoutRequest, Payout, BankFile]) {
      expect(schema.safeParse(exampleOf(schema)).success).toBe(true);
    }
  });
});

describe('a bank file answer', () => {
  it('is the plan of a read file: each matched entry with its payout, and the rest with a reason, amounts in major units', () => {
    const file = readBankFile(readFileSync(path.join(__dirname, '../fixtures/bank-files/camt.053.001.08-statement.xml'), 'utf8'));
    const payouts = new Map([
      [
        'po-01JE1A0B1C2D3E4F5G6H7J8K9M',
        {
          id: 'po_A',
          endToEndId: 'po-01JE1A0B1C2D3E4F5G6H7J8K9M',
          status: 'in_transit' as const,
          amount: 10000n,
          currency: 'EUR',
          messageId: 'B-1',
        },
      ],
    ]);
    const plan = planBankFile(file, payouts);
    const view = bankFileView({ id: 'bf_1', messageId: file.messageId, messageType: file.messageType, ...plan }, minorUnits);
    expect(BankFileViewSchema.strict().parse(view)).toEqual(view);
    expect(view).toEqual({
      id: 'bf_1',
      object: 'bank_file',
      message_id: 'STMT-20261130-0001',
      message_type: 'camt.053.001.08',
      entries: [{ end_to_end_id: 'po-01JE1A0B1C2D3E4F5G6H7J8K9M', amount: 100, currency: 'EUR', outcome: 'paid', payout: 'po_A' }],
      unmatched: [{ end_to_end_id: 'po-01JE1B2C3D4E5F6G7H8J9K0M1N', amount: 30, currency: 'EUR', reason: 'unknown_end_to_end_id' }],
    });
  });
});
