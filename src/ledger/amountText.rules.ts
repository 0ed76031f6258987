/**
 * Amounts as exact decimal text, without the ISO 4217 table: what the workflow sandbox needs (every
 * payment carries its exponent), so that a workflow's start never evaluates the table (docs/benchmarks.md).
 */

/** Exact decimal text of a minor-unit amount with `digits` fractional digits, e.g. 1050n, 2 → "10.50". */
export function formatMinor(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  return (negative ? '-' : '') + (digits ? `${whole}.${fraction}` : whole);
}

/** A stored amount in major units: the nearest double to its exact decimal. */
export function majorOf(minor: bigint, exponent: number): number {
  return Number(formatMinor(minor, exponent));
}
