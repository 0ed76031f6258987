/**
 * Money: integer minor units, never floating-point arithmetic. Amounts cross the API as JSON
 * numbers in major units; they are converted through their shortest decimal text, digit by digit.
 */

import { data as iso4217 } from 'currency-codes';

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

/** ISO 4217 minor units (USD 2, JPY 0, KWD 3, HUF 2) of a code `isCurrency` accepted. */
export function minorUnits(currency: string): number {
  const digits = MINOR_UNITS.get(currency);
  if (digits === undefined) throw new Error(`not an ISO 4217 currency: ${currency}`);
  return digits;
}

const legacyExponents = new Map<string, number>();

/**
 * The exponent a stored amount was taken with. Payments created before exponents were kept were
 * scaled by ICU (`Intl`), so theirs is ICU's: their minor units keep meaning what they meant.
 */
export function storedExponent(amount: { currency: string; amountExponent?: number }): number {
  if (amount.amountExponent !== undefined) return amount.amountExponent;
  let digits = legacyExponents.get(amount.currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: amount.currency }).resolvedOptions().maximumFractionDigits ?? 2;
    legacyExponents.set(amount.currency, digits);
  }
  return digits;
}

export type AmountParse = { ok: true; minor: bigint } | { ok: false; message: string };

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
    return {
      ok: false,
      message:
        digits === 0
          ? `${currency} amounts cannot have fractional digits`
          : `${currency} amounts can have at most ${digits} fractional digit${digits === 1 ? '' : 's'}`,
    };
  }
  return { ok: true, minor: BigInt(whole + fraction.padEnd(digits, '0')) };
}

/**
 * Minor units back to a JSON number in major units (the nearest double to the exact decimal).
 * `exponent`: the one stored with the amount, so that a table update never rescales it.
 */
export function toMajor(minor: bigint | string, currency: string, exponent?: number): number {
  return Number(formatMajor(BigInt(minor), currency, exponent));
}

/** Exact decimal text of a minor-unit amount, e.g. 1050n USD → "10.50". */
export function formatMajor(minor: bigint, currency: string, exponent?: number): string {
  const digits = exponent ?? minorUnits(currency);
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  return (negative ? '-' : '') + (digits ? `${whole}.${fraction}` : whole);
}

/** Shortest round-trip decimal text of a positive finite number, without exponent notation. */
function plainDecimal(n: number): string {
  const text = String(n);
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, intPart, fracPart = '', expText] = match;
  const exp = Number(expText);
  const digits = intPart + fracPart;
  const point = intPart.length + exp;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
