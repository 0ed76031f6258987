/**
 * A payment's funding reference: the ISO 11649 creditor reference (`RF` + 2 check digits + up to 21
 * characters) a payer writes in a bank transfer, and by which the bank's credit is matched to the
 * payment (docs/bank.md, "Funding by bank transfer"). Check digits are ISO 7064 mod 97-10, made and
 * checked by `node-iso11649`.
 * Pure: no I/O, no clocks.
 */
import { generate, validate } from 'node-iso11649';

/** The characters after `RF` and the check digits: every reference the service issues has all 21. */
const BODY_LENGTH = 21;
const LENGTH = 4 + BODY_LENGTH;

/**
 * The payment's reference, from its id alone, so that a retried create (same id) answers the same:
 * the last 21 characters of the id's ULID (its 16 random characters and the 5 lowest of its time),
 * which a unique index on the read model keeps unique (docs/bank.md).
 */
export function fundingReferenceOf(paymentId: string): string {
  const body = paymentId
    .replace(/^pay_/, '')
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '')
    .slice(-BODY_LENGTH)
    .padStart(BODY_LENGTH, '0');
  return generate(body);
}

/** A creditor reference with valid check digits, spaces and case ignored. */
export function isFundingReference(text: string): boolean {
  return validate(text);
}

/** A reference as the service compares it: no spaces, upper case; undefined when its check digits fail. */
export function normalReference(text: string): string | undefined {
  const ref = text.replace(/\s+/g, '').toUpperCase();
  return validate(ref) ? ref : undefined;
}

/**
 * A reference of the service's shape (25 characters, valid check digits) in a transfer's free text
 * (`RmtInf/Ustrd`), spaces and case ignored; the first, or undefined. Only the service's own length is
 * looked for: a shorter candidate would pass the check digits by chance once in 97.
 */
export function findFundingReference(text: string): string | undefined {
  const flat = text.replace(/\s+/g, '').toUpperCase();
  for (let at = flat.indexOf('RF'); at >= 0; at = flat.indexOf('RF', at + 1)) {
    const candidate = flat.slice(at, at + LENGTH);
    if (/^RF\d{2}[0-9A-Z]+$/.test(candidate) && candidate.length === LENGTH && validate(candidate)) return candidate;
  }
  return undefined;
}
