/**
 * Money: integer minor units, never floating-point arithmetic. Amounts cross the API as JSON
 * numbers in major units; they are converted through their shortest decimal text, digit by digit.
 */

const ISO_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && ISO_CURRENCIES.has(code);
}

/** ISO 4217 minor units (USD 2, JPY 0, KWD 3), as the platform's ICU data knows them. */
export function minorUnits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

export type AmountParse = { ok: true; minor: bigint } | { ok: false; message: string };

/** Convert a JSON number in major units to minor units, refusing anything the currency cannot hold. */
export function toMinor(amount: number, currency: string): AmountParse {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return { ok: false, message: 'amount must be a finite number' };
  if (amount <= 0) return { ok: false, message: 'amount must be greater than 0' };
  const digits = minorUnits(currency);
  const text = plainDecimal(amount);
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > digits) {
    return {
      ok: false,
      message: digits === 0
        ? `${currency} amounts cannot have fractional digits`
        : `${currency} amounts can have at most ${digits} fractional digit${digits === 1 ? '' : 's'}`,
    };
  }
  return { ok: true, minor: BigInt(whole + fraction.padEnd(digits, '0')) };
}

/** Minor units back to a JSON number in major units (the nearest double to the exact decimal). */
export function toMajor(minor: bigint | string, currency: string): number {
  return Number(formatMajor(BigInt(minor), currency));
}

/** Exact decimal text of a minor-unit amount, e.g. 1050n USD → "10.50". */
export function formatMajor(minor: bigint, currency: string): string {
  const digits = minorUnits(currency);
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
