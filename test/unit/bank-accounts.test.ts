/** Bank accounts (src/payouts/bankAccounts.rules.ts) and their numbers sealed at rest (src/platform/lib/sealedBox.ts). */
import { describe, expect, it } from 'vitest';
import {
  TEST_BANK_ACCOUNTS,
  bankAccountStatusAfterFailure,
  canonicalNumber,
  checkBankAccountNumber,
  defaultBankAccount,
  deriveBankAccountKeys,
  fingerprintOf,
  isPayableBankAccount,
  last4Of,
  parseCanonicalNumber,
} from '../../src/payouts/bankAccounts.rules';
import { PAYOUT_FAILURE_CODES } from '../../src/payouts/payout.rules';
import { openBankAccountNumber, openText, sealBankAccountNumber, sealText } from '../../src/platform/lib/sealedBox';
import { openWebhookSecret, sealWebhookSecret } from '../../src/webhooks/secretBox';

const eur = (iban: string, country = iban.slice(0, 2)) => checkBankAccountNumber({ country, currency: 'EUR', iban });
const us = (routing_number: string, account_number: string, currency = 'USD') =>
  checkBankAccountNumber({ country: 'US', currency, routing_number, account_number });

describe('IBANs', () => {
  it('accept a valid IBAN in any spacing and case, kept in electronic format', () => {
    expect(eur('de89 3704 0044 0532 0130 00', 'DE')).toEqual({ ok: true, number: { scheme: 'iban', iban: 'DE89370400440532013000' } });
    expect(eur('NL91ABNA0417164300')).toMatchObject({ ok: true });
  });

  it('refuse a mistyped character (mod 97), a wrong length, an unknown country and a country that disagrees', () => {
    expect(eur('DE89370400440532013001')).toEqual({
      ok: false,
      problem: { field: 'iban', message: 'iban fails its check digits (mod 97): a character is mistyped' },
    });
    expect(eur('DE8937040044053201300')).toMatchObject({ ok: false, problem: { field: 'iban', message: expect.stringMatching(/length/) } });
    expect(eur('XX89370400440532013000', 'XX')).toMatchObject({ ok: false, problem: { field: 'iban' } });
    expect(eur('DE89370400440532013000', 'FR')).toEqual({
      ok: false,
      problem: { field: 'country', message: 'country is FR but the IBAN is of DE' },
    });
    expect(eur('')).toMatchObject({ ok: false, problem: { field: 'iban' } });
  });

  it('refuse a Swiss QR-IBAN, which takes QR-bill payments only', () => {
    expect(eur('CH4431999123000889012')).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/QR-IBAN/) } });
  });

  it('refuse an IBAN with US numbers too, and a non-US account without an IBAN', () => {
    expect(
      checkBankAccountNumber({
        country: 'DE',
        currency: 'EUR',
        iban: 'DE89370400440532013000',
        routing_number: '110000000',
        account_number: '1234',
      }),
    ).toMatchObject({ ok: false, problem: { field: 'iban', message: expect.stringMatching(/not both/) } });
    expect(checkBankAccountNumber({ country: 'DE', currency: 'EUR' })).toMatchObject({ ok: false, problem: { field: 'iban' } });
    expect(checkBankAccountNumber({ country: 'DE', currency: 'EUR', routing_number: '110000000', account_number: '1234' })).toMatchObject({
      ok: false,
      problem: { field: 'country' },
    });
  });
});

describe('US routing and account numbers', () => {
  it('accept a routing number that passes the ABA checksum with a 4-17 digit account number in USD', () => {
    expect(us('110000000', '000123456789')).toEqual({
      ok: true,
      number: { scheme: 'us_aba', routingNumber: '110000000', accountNumber: '000123456789' },
    });
    expect(us('021000021', '1234')).toMatchObject({ ok: true });
  });

  it('refuse a failed checksum, a prefix no Federal Reserve range has, other shapes, and other currencies', () => {
    expect(us('110000001', '000123456789')).toMatchObject({ ok: false, problem: { field: 'routing_number' } });
    // These pass the checksum, but 99 and 13 name no Federal Reserve range.
    for (const prefix of ['990000000', '130000006']) {
      expect(us(prefix, '000123456789'), prefix).toMatchObject({ ok: false, problem: { field: 'routing_number' } });
    }
    for (const bad of ['11000000', ' 110000000', '11000000a', '']) {
      expect(us(bad, '000123456789'), bad).toMatchObject({ ok: false, problem: { field: 'routing_number' } });
    }
    for (const bad of ['123', '123456789012345678', '1234-5678', '']) {
      expect(us('110000000', bad), bad).toMatchObject({ ok: false, problem: { field: 'account_number' } });
    }
    expect(us('110000000', '000123456789', 'EUR')).toMatchObject({ ok: false, problem: { field: 'currency' } });
    expect(checkBankAccountNumber({ country: 'US', currency: 'USD', routing_number: '110000000' })).toMatchObject({ ok: false });
  });
});

describe('what the API shows of a number', () => {
  it('last4 is the IBAN or account number last four; the docs test numbers end as the simulated bank reads them', () => {
    expect(TEST_BANK_ACCOUNTS.paid.iban.slice(-4)).toBe('0000');
    for (const [story, ending] of [
      ['paid', '0000'],
      ['no_account', '0001'],
      ['returned_account_closed', '0002'],
    ] as const) {
      const account = TEST_BANK_ACCOUNTS[story];
      const iban = eur(account.iban);
      const usNumber = us(account.routing_number, account.account_number);
      expect(iban.ok && last4Of(iban.number), story).toBe(ending);
      expect(usNumber.ok && last4Of(usNumber.number), story).toBe(ending);
    }
  });

  it('the canonical text round-trips', () => {
    for (const n of [
      { scheme: 'iban', iban: 'DE89370400440532013000' },
      { scheme: 'us_aba', routingNumber: '110000000', accountNumber: '000123456789' },
    ] as const) {
      expect(parseCanonicalNumber(canonicalNumber(n))).toEqual(n);
    }
    expect(() => parseCanonicalNumber('iban:DE89:x')).toThrow();
    expect(() => parseCanonicalNumber('us_aba:110000000')).toThrow();
  });

  it('the fingerprint matches equal numbers of one account and mode, and neither other accounts, modes nor the number', () => {
    const { fingerprintKey } = deriveBankAccountKeys(Buffer.alloc(32, 7));
    const number = { scheme: 'iban', iban: 'DE89370400440532013000' } as const;
    const live = { accountId: 'acct_1', livemode: true };
    const print = fingerprintOf(fingerprintKey, live, number);
    expect(print).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(fingerprintOf(fingerprintKey, live, { ...number })).toBe(print);
    expect(fingerprintOf(fingerprintKey, { ...live, accountId: 'acct_2' }, number)).not.toBe(print);
    expect(fingerprintOf(fingerprintKey, { ...live, livemode: false }, number)).not.toBe(print);
    expect(fingerprintOf(fingerprintKey, live, { scheme: 'iban', iban: 'NL91ABNA0417164300' })).not.toBe(print);
    expect(fingerprintOf(deriveBankAccountKeys(Buffer.alloc(32, 8)).fingerprintKey, live, number)).not.toBe(print);
  });

  it('derives two keys of its own from the root key, neither the root key', () => {
    const root = Buffer.alloc(32, 7);
    const { sealKey, fingerprintKey } = deriveBankAccountKeys(root);
    expect(sealKey).toHaveLength(32);
    expect(sealKey.equals(fingerprintKey) || sealKey.equals(root) || fingerprintKey.equals(root)).toBe(false);
    expect(deriveBankAccountKeys(root).sealKey.equals(sealKey)).toBe(true);
  });
});

describe('statuses', () => {
  it('new and verified accounts are payable; errored and disabled are not', () => {
    expect(['new', 'verified', 'errored', 'disabled'].map((s) => isPayableBankAccount(s as never))).toEqual([true, true, false, false]);
  });

  it('a failure about the account marks it errored; declined and could_not_process do not; disabled stays disabled', () => {
    const errored = PAYOUT_FAILURE_CODES.filter((code) => bankAccountStatusAfterFailure('verified', code) === 'errored');
    expect(errored).toEqual(['account_closed', 'no_account', 'invalid_account_number', 'account_frozen', 'incorrect_account_holder_name']);
    expect(bankAccountStatusAfterFailure('new', 'declined')).toBe('new');
    expect(bankAccountStatusAfterFailure('disabled', 'account_closed')).toBe('disabled');
  });
});

describe('the default account per currency', () => {
  const account = (id: string, currency: string, status: 'new' | 'verified' | 'errored' | 'disabled', defaultForCurrency = false) => ({
    id,
    currency,
    status,
    defaultForCurrency,
  });

  it('is the current default while it is payable, else the oldest payable one, else none', () => {
    expect(defaultBankAccount([account('ba_1', 'EUR', 'new'), account('ba_2', 'EUR', 'new', true)], 'EUR')).toBe('ba_2');
    expect(
      defaultBankAccount([account('ba_1', 'EUR', 'errored'), account('ba_2', 'EUR', 'new'), account('ba_3', 'EUR', 'new')], 'EUR'),
    ).toBe('ba_2');
    expect(defaultBankAccount([account('ba_1', 'EUR', 'disabled', true), account('ba_2', 'EUR', 'verified')], 'EUR')).toBe('ba_2');
    expect(defaultBankAccount([account('ba_1', 'EUR', 'errored', true), account('ba_2', 'EUR', 'new')], 'EUR')).toBe('ba_2');
    expect(defaultBankAccount([account('ba_1', 'USD', 'new', true)], 'EUR')).toBeNull();
    expect(defaultBankAccount([account('ba_1', 'EUR', 'errored')], 'EUR')).toBeNull();
  });
});

describe('numbers sealed at rest', () => {
  const key = Buffer.alloc(32, 3);
  const number = 'iban:DE89370400440532013000';

  it('open for their own bank account under their key, and for nothing else', () => {
    const sealed = sealBankAccountNumber(number, 'ba_1', key);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('DE89');
    expect(sealBankAccountNumber(number, 'ba_1', key)).not.toBe(sealed);
    expect(openBankAccountNumber(sealed, 'ba_1', key)).toBe(number);
    expect(() => openBankAccountNumber(sealed, 'ba_2', key)).toThrow('bank account ba_2: its number does not open under this key');
    expect(() => openBankAccountNumber(sealed, 'ba_1', Buffer.alloc(32, 4))).toThrow(/does not open/);
    // A webhook secret's seal and a number's never stand in for each other.
    expect(() => openWebhookSecret(sealed, 'ba_1', key)).toThrow(/does not open/);
    expect(() => openBankAccountNumber(sealWebhookSecret(number, 'ba_1', key), 'ba_1', key)).toThrow(/does not open/);
  });

  it('is the same format the webhook secrets have had: what the encryption migration sealed still opens', () => {
    // Migrations are CommonJS files without type declarations.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const migration = require('../../migrations/20261122030700_webhook_secret_encryption.js');
    expect(openWebhookSecret(migration.seal('whsec_abc', 'wh_1', key), 'wh_1', key)).toBe('whsec_abc');
    const sealed = sealText('whsec_abc', 'webhook-secret:wh_1', key);
    expect(openWebhookSecret(sealed, 'wh_1', key)).toBe('whsec_abc');
    expect(openText(sealWebhookSecret('whsec_abc', 'wh_1', key), 'webhook-secret:wh_1', key)).toBe('whsec_abc');
    expect(() => openWebhookSecret('v2.a.b.c', 'wh_1', key)).toThrow('webhook secret: unknown sealed format');
  });
});
