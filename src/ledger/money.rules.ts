/**
 * Money: integer minor units, never floating-point arithmetic. Amounts cross the API as JSON
 * numbers in major units; they are converted through their shortest decimal text, digit by digit.
 */

import { data as iso4217 } from 'currency-codes';
import { formatMinor, majorOf } from './amountText.rules';

/**
 * ISO 4217 codes whose minor unit is "N.A.": metals, fund units, testing and "no currency". They
 * are not means of payment (the ISO table the package ships lists them with 0 digits).
 */
const NOT_MEANS_OF_PAYMENT: ReadonlySet<string> = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

/** Code → minor units (exponent), from the ISO 4217 table (never ICU/`Intl`, which disagrees for 17 currencies). Built once. */
const MINOR_UNITS: ReadonlyMap<string, number> = new Map(
  iso4217.filter((c) => !NOT_MEANS_OF_PAYMENT.has(c.code)).map((c) => [c.code, c.digits]),
);

export function isCurrency(code: string): boolean {
  return MINOR_UNITS.has(code);
}

/** Why a three-letter code is refused as a payment's currency: known to ISO 4217 but no means of payment, or unknown. */
export function currencyRefusal(code: string): string {
  return NOT_MEANS_OF_PAYMENT.has(code)
    ? `${code} is not accepted for payments: ISO 4217 lists it as a precious metal, a fund or test unit, not a currency`
    : `${code} is not an ISO 4217 currency code`;
}

/** ISO 4217 minor units (USD 2, JPY 0, KWD 3, HUF 2) of a code `isCurrency` accepted. */
export function minorUnits(currency: string): number {
  const digits = MINOR_UNITS.get(currency);
  if (digits === undefined) throw new Error(`not an ISO 4217 currency: ${currency}`);
  return digits;
}

type AmountParse = { ok: true; minor: bigint } | { ok: false; message: string };

/**
 * Convert a JSON number in major units to minor units, refusing anything the currency cannot hold.
 * `field` names the value in messages; `allowZero` accepts 0 (a fee); `exponent` is a stored amount's
 * (a refund of a payment is measured in the payment's own minor units).
 */
export function toMinor(
  amount: number,
  currency: string,
  { field = 'amount', allowZero = false, exponent }: { field?: string; allowZero?: boolean; exponent?: number } = {},
): AmountParse {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return { ok: false, message: `${field} must be a finite number` };
  if (allowZero ? amount < 0 : amount <= 0) {
    return { ok: false, message: allowZero ? `${field} must not be negative` : `${field} must be greater than 0` };
  }
  const digits = exponent ?? minorUnits(currency);
  const text = plainDecimal(amount);
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > digits) {
    return { ok: false, message: fractionDigitsMessage(currency, digits) };
  }
  return { ok: true, minor: BigInt(whole + fraction.padEnd(digits, '0')) };
}

/** The refusal of an amount with more fractional digits than the currency has (its own function so that the
 * singular is tested: no ISO 4217 currency has exactly 1). */
export function fractionDigitsMessage(currency: string, digits: number): string {
  return digits === 0
    ? `${currency} amounts cannot have fractional digits`
    : `${currency} amounts can have at most ${digits} fractional digit${digits === 1 ? '' : 's'}`;
}

/**
 * Minor units back to a JSON number in major units (the nearest double to the exact decimal).
 * `exponent`: the one stored with the amount, so that a table update never rescales it.
 */
export function toMajor(minor: bigint, currency: string, exponent?: number): number {
  return majorOf(minor, exponent ?? minorUnits(currency));
}

/** Exact decimal text of a minor-unit amount, e.g. 1050n USD → "10.50". */
export function formatMajor(minor: bigint, currency: string, exponent?: number): string {
  return formatMinor(minor, exponent ?? minorUnits(currency));
}

/**
 * Shortest round-trip decimal text of a positive finite number, without exponent notation.
 * `String` writes exponent notation only below 1e-6 and from 1e21 up, always with one digit before
 * the point (ECMAScript's Number::toString): `1.5e-7`, `1.2345e+21`. Exported for its unit test.
 */
export function plainDecimal(n: number): string {
  const text = String(n);
  const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, lead, rest = '', expText] = match;
  const exp = Number(expText);
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${lead}${rest}`;
  return lead + rest + '0'.repeat(exp - rest.length);
}
