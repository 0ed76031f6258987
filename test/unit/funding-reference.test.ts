/**
 * The payment's ISO 11649 creditor reference (docs/bank.md, "Funding by bank transfer"): derived from
 * the payment id alone, so a retried create answers the same; found in a transfer's text with spaces
 * and case ignored, its check digits verified.
 */
import { describe, expect, it } from 'vitest';
import { findFundingReference, fundingReferenceOf, isFundingReference } from '../../src/payments/fundingReference.rules';

describe('funding reference', () => {
  it("takes the standard's own example as valid, and a changed digit as not", () => {
    expect(isFundingReference('RF18539007547034')).toBe(true);
    expect(isFundingReference('RF18 5390 0754 7034')).toBe(true);
    expect(isFundingReference('rf18539007547034')).toBe(true);
    expect(isFundingReference('RF18539007547035')).toBe(false);
    expect(isFundingReference('RF19539007547034')).toBe(false);
    expect(isFundingReference('RF1853900754703X&')).toBe(false);
  });

  it('derives one valid reference per payment id, the same every time, at most 25 characters', () => {
    const id = 'pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F';
    const ref = fundingReferenceOf(id);
    expect(ref).toMatch(/^RF\d{2}[0-9A-Z]{1,21}$/);
    expect(ref.length).toBeLessThanOrEqual(25);
    expect(isFundingReference(ref)).toBe(true);
    expect(fundingReferenceOf(id)).toBe(ref);
    expect(fundingReferenceOf('pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2G')).not.toBe(ref);
  });

  it('finds a valid reference in free text, spaces and case ignored, and nothing in text without one', () => {
    const ref = fundingReferenceOf('pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F');
    const spaced = ref.toLowerCase().replace(/(.{4})/g, '$1 ');
    expect(findFundingReference(`Invoice 42 ${spaced} thanks`)).toBe(ref);
    expect(findFundingReference(`ref:${ref}`)).toBe(ref);
    expect(findFundingReference('Invoice 42, no reference')).toBeUndefined();
    // A wrong check digit is no reference at all.
    expect(findFundingReference(`pay ${ref.slice(0, 2)}00${ref.slice(4)}`)).toBeUndefined();
  });
});
