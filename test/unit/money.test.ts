/**
 * Money, every branch: ISO 4217 minor units and the codes that are not means of payment, parsing a
 * JSON number digit by digit (exponent notation included) with its exact refusals, and formatting.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatMajor,
  fractionDigitsMessage,
  currencyRefusal,
  isCurrency,
  minorUnits,
  plainDecimal,
  toMajor,
  toMinor,
} from '../../src/ledger/money.rules';

/** ISO 4217's "N.A." minor unit: metals, fund units, testing and "no currency". */
const NOT_MEANS_OF_PAYMENT = ['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX'];

describe('ISO 4217 minor units', () => {
  it('come from the ISO table (never ICU, which says 0 for HUF, IDR and ISK)', () => {
    expect(['USD', 'EUR', 'JPY', 'KWD', 'BHD', 'HUF', 'IDR', 'ISK', 'CLF', 'UYW', 'CHF'].map(minorUnits)).toEqual([
      2, 2, 0, 3, 3, 2, 2, 0, 4, 4, 2,
    ]);
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('CLF')).toBe(true);
  });

  it('refuse unknown codes and lower case', () => {
    for (const code of ['XYZ', 'usd', 'US', '']) expect(isCurrency(code), code).toBe(false);
    expect(() => minorUnits('XYZ')).toThrow(new Error('not an ISO 4217 currency: XYZ'));
    expect(() => minorUnits('usd')).toThrow(new Error('not an ISO 4217 currency: usd'));
  });

  it.each(NOT_MEANS_OF_PAYMENT)('refuse %s, which is not a means of payment', (code) => {
    expect(isCurrency(code)).toBe(false);
    expect(() => minorUnits(code)).toThrow(new Error(`not an ISO 4217 currency: ${code}`));
    // The refusal says why: the code exists, it is not a means of payment.
    expect(currencyRefusal(code)).toBe(
      `${code} is not accepted for payments: ISO 4217 lists it as a precious metal, a fund or test unit, not a currency`,
    );
  });

  it('an unknown code is refused as unknown', () => {
    expect(currencyRefusal('XYZ')).toBe('XYZ is not an ISO 4217 currency code');
  });
});

describe('plainDecimal', () => {
  it('writes exponent notation out, with multi-digit mantissas', () => {
    expect(plainDecimal(1e21)).toBe('1000000000000000000000');
    expect(plainDecimal(1.2345e21)).toBe('1234500000000000000000');
    expect(plainDecimal(9.87654321e25)).toBe('98765432100000000000000000');
    expect(plainDecimal(1e-7)).toBe('0.0000001');
    expect(plainDecimal(1.5e-7)).toBe('0.00000015');
    expect(plainDecimal(1.2345e-10)).toBe('0.00000000012345');
    expect(plainDecimal(5e-324)).toBe(`0.${'0'.repeat(323)}5`);
  });

  it('leaves plain notation as String writes it', () => {
    expect(plainDecimal(0.000001)).toBe('0.000001');
    expect(plainDecimal(125.5)).toBe('125.5');
    expect(plainDecimal(999999999999999900000)).toBe('999999999999999900000');
  });

  it('is the same number, without an exponent, for any positive double (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = plainDecimal(n);
        expect(text).toMatch(/^\d+(\.\d+)?$/);
        expect(Number(text)).toBe(n);
      }),
    );
  });
});

describe('toMinor', () => {
  it('converts digit by digit, never through floating-point multiplication', () => {
    expect(toMinor(0.29, 'USD')).toEqual({ ok: true, minor: 29n }); // 0.29 * 100 = 28.999999999999996
    expect(toMinor(10.5, 'USD')).toEqual({ ok: true, minor: 1050n });
    expect(toMinor(10, 'USD')).toEqual({ ok: true, minor: 1000n });
    expect(toMinor(0.01, 'USD')).toEqual({ ok: true, minor: 1n });
    expect(toMinor(1.005, 'KWD')).toEqual({ ok: true, minor: 1005n });
    expect(toMinor(1500, 'JPY')).toEqual({ ok: true, minor: 1500n });
    expect(toMinor(0.0001, 'CLF')).toEqual({ ok: true, minor: 1n });
    expect(toMinor(Number.MAX_SAFE_INTEGER, 'JPY')).toEqual({ ok: true, minor: 9007199254740991n });
  });

  it('reads exponent notation with multi-digit mantissas (from 1e21 up)', () => {
    expect(toMinor(1e21, 'JPY')).toEqual({ ok: true, minor: 10n ** 21n });
    expect(toMinor(1.2345e21, 'JPY')).toEqual({ ok: true, minor: 1_234_500_000_000_000_000_000n });
    expect(toMinor(1.2345e21, 'USD')).toEqual({ ok: true, minor: 123_450_000_000_000_000_000_000n });
    expect(toMinor(9.87654321e25, 'KWD')).toEqual({ ok: true, minor: 98_765_432_100_000_000_000_000_000_000n });
  });

  it('reads exponent notation below 1e-6, where every currency has too many digits', () => {
    expect(toMinor(1e-7, 'USD')).toEqual({ ok: false, message: 'USD amounts can have at most 2 fractional digits' });
    expect(toMinor(1.5e-7, 'CLF')).toEqual({ ok: false, message: 'CLF amounts can have at most 4 fractional digits' });
    expect(toMinor(1.25e-7, 'JPY')).toEqual({ ok: false, message: 'JPY amounts cannot have fractional digits' });
    expect(toMinor(Number.MIN_VALUE, 'USD')).toEqual({ ok: false, message: 'USD amounts can have at most 2 fractional digits' });
  });

  it('refuses too many fractional digits with the currency and its exponent', () => {
    expect(toMinor(10.001, 'USD')).toEqual({ ok: false, message: 'USD amounts can have at most 2 fractional digits' });
    expect(toMinor(0.1 + 0.2, 'USD')).toEqual({ ok: false, message: 'USD amounts can have at most 2 fractional digits' });
    expect(toMinor(1.0005, 'KWD')).toEqual({ ok: false, message: 'KWD amounts can have at most 3 fractional digits' });
    expect(toMinor(0.00001, 'CLF')).toEqual({ ok: false, message: 'CLF amounts can have at most 4 fractional digits' });
    expect(toMinor(1.5, 'JPY')).toEqual({ ok: false, message: 'JPY amounts cannot have fractional digits' });
  });

  it('says "digit" for one, "digits" for more, and no digits for a zero-decimal currency', () => {
    expect(fractionDigitsMessage('ABC', 0)).toBe('ABC amounts cannot have fractional digits');
    expect(fractionDigitsMessage('ABC', 1)).toBe('ABC amounts can have at most 1 fractional digit');
    expect(fractionDigitsMessage('ABC', 2)).toBe('ABC amounts can have at most 2 fractional digits');
    expect(fractionDigitsMessage('ABC', 4)).toBe('ABC amounts can have at most 4 fractional digits');
  });

  it('refuses zero and negative amounts, smallest first', () => {
    for (const amount of [0, -0, -1, -0.01, -Number.MIN_VALUE, -1e21]) {
      expect(toMinor(amount, 'USD'), String(amount)).toEqual({ ok: false, message: 'amount must be greater than 0' });
    }
    expect(toMinor(Number.MIN_VALUE, 'USD').ok).toBe(false); // > 0, but too many digits
  });

  it('refuses what is not a finite number', () => {
    for (const amount of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      '12' as unknown as number,
      null as unknown as number,
    ]) {
      expect(toMinor(amount, 'USD'), String(amount)).toEqual({ ok: false, message: 'amount must be a finite number' });
    }
  });

  it('names the field it reads in every refusal', () => {
    expect(toMinor(Number.NaN, 'USD', { field: 'platform_fee' })).toEqual({ ok: false, message: 'platform_fee must be a finite number' });
    expect(toMinor(0, 'USD', { field: 'refund_amount' })).toEqual({ ok: false, message: 'refund_amount must be greater than 0' });
    expect(toMinor(-1, 'USD', { field: 'refund_amount' })).toEqual({ ok: false, message: 'refund_amount must be greater than 0' });
  });

  it('takes 0 when asked to (a fee), never a negative', () => {
    expect(toMinor(0, 'USD', { field: 'platform_fee', allowZero: true })).toEqual({ ok: true, minor: 0n });
    expect(toMinor(-0, 'USD', { field: 'platform_fee', allowZero: true })).toEqual({ ok: true, minor: 0n });
    expect(toMinor(2.5, 'USD', { field: 'platform_fee', allowZero: true })).toEqual({ ok: true, minor: 250n });
    for (const amount of [-0.01, -1, -Number.MIN_VALUE]) {
      expect(toMinor(amount, 'USD', { field: 'platform_fee', allowZero: true })).toEqual({
        ok: false,
        message: 'platform_fee must not be negative',
      });
    }
  });

  it('measures in a stored exponent when given one, over today’s table', () => {
    expect(toMinor(1.5, 'JPY', { exponent: 2 })).toEqual({ ok: true, minor: 150n });
    expect(toMinor(10, 'HUF', { exponent: 0 })).toEqual({ ok: true, minor: 10n });
    expect(toMinor(1.5, 'HUF', { exponent: 0 })).toEqual({ ok: false, message: 'HUF amounts cannot have fractional digits' });
    expect(toMinor(1.005, 'KWD', { exponent: 2 })).toEqual({ ok: false, message: 'KWD amounts can have at most 2 fractional digits' });
  });

  it('throws for a currency that is not one (callers check isCurrency first)', () => {
    expect(() => toMinor(1, 'XAU')).toThrow('not an ISO 4217 currency: XAU');
  });
});

describe('formatMajor and toMajor', () => {
  it('format minor units exactly, with the currency’s digits', () => {
    expect(formatMajor(1050n, 'USD')).toBe('10.50');
    expect(formatMajor(5n, 'KWD')).toBe('0.005');
    expect(formatMajor(0n, 'USD')).toBe('0.00');
    expect(formatMajor(1500n, 'JPY')).toBe('1500');
    expect(formatMajor(0n, 'JPY')).toBe('0');
    expect(formatMajor(123456789n, 'CLF')).toBe('12345.6789');
  });

  it('format negative amounts with one leading minus', () => {
    expect(formatMajor(-1050n, 'USD')).toBe('-10.50');
    expect(formatMajor(-5n, 'KWD')).toBe('-0.005');
    expect(formatMajor(-1n, 'USD')).toBe('-0.01');
    expect(formatMajor(-1500n, 'JPY')).toBe('-1500');
  });

  it('use the stored exponent over today’s table', () => {
    expect(formatMajor(1050n, 'USD', 3)).toBe('1.050');
    expect(formatMajor(1050n, 'HUF', 0)).toBe('1050');
    expect(formatMajor(1050n, 'JPY', 2)).toBe('10.50');
  });

  it('toMajor gives the nearest number', () => {
    expect(toMajor(29n, 'USD')).toBe(0.29);
    expect(toMajor(1050n, 'USD')).toBe(10.5);
    expect(toMajor(-1050n, 'USD')).toBe(-10.5);
    expect(toMajor(1050n, 'USD', 0)).toBe(1050);
    expect(toMajor(1005n, 'KWD')).toBe(1.005);
  });

  it('round-trips any amount of up to 15 digits through a JSON number (property)', () => {
    const currency = fc.constantFrom('USD', 'JPY', 'KWD', 'CLF', 'HUF');
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 999_999_999_999_999n }), currency, (minor, code) => {
        expect(toMinor(toMajor(minor, code), code)).toEqual({ ok: true, minor });
        expect(formatMajor(-minor, code)).toBe(`-${formatMajor(minor, code)}`);
        expect(formatMajor(minor, code).replace('.', '').replace(/^0+/, '')).toBe(minor.toString());
      }),
    );
  });
});
