/**
 * Booked credits read from a camt.054 (docs/bank.md, "Funding by bank transfer"): CRDT and BOOK only,
 * no reversal; the reference structured, else found in the free text (spaces and case ignored, check
 * digits verified); the debtor, the bank's reference, the booking date and the report's account.
 */
import { describe, expect, it } from 'vitest';
import { readBankFile } from '../../src/payouts/bankFileRead.format';
import { fundingReferenceOf } from '../../src/payments/fundingReference.rules';
import { creditsFile } from '../helpers/bankCredits';

const exact = fundingReferenceOf('pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F');
const short = fundingReferenceOf('pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2G');
const over = fundingReferenceOf('pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2H');

describe('booked credits in a camt.054', () => {
  const file = readBankFile(creditsFile({ exact, short, over }, 'DE89370400440532013000', 'NTF-1'));

  it('reads each booked credit, and no reversal, debit or pending entry', () => {
    expect(file.credits?.map((c) => [c.position, c.amount, c.currency, c.entryRef])).toEqual([
      [0, 10000n, 'EUR', 'BANK-0001'],
      [1, 4000n, 'EUR', 'BANK-0002'],
      [2, 13000n, 'EUR', 'BANK-0003'],
      [3, 500n, 'EUR', 'BANK-0004'],
      [4, 700n, 'EUR', 'BANK-0005'],
      [5, 10000n, 'USD', 'BANK-0006'],
    ]);
    expect(file.credits?.every((c) => c.accountIban === 'DE89370400440532013000' && c.bookedOn === '2026-12-01')).toBe(true);
  });

  it('finds the reference structured, or in the free text; a malformed one or none is no reference', () => {
    expect(file.credits?.map((c) => c.reference)).toEqual([exact, short, over, null, null, exact]);
    expect(file.credits?.[3].remittance).toBe('Invoice 42, no reference');
    expect(file.credits?.[4].remittance).toBe('RF00 BAD REFERENCE');
  });

  it("reads the debtor's name and IBAN (personal data the caller keeps in PostgreSQL only)", () => {
    expect(file.credits?.[0]).toMatchObject({ debtorName: 'Ada Payer', debtorIban: 'FR1420041010050500013M02606' });
    expect(file.credits?.[2]).toMatchObject({ debtorName: null, debtorIban: null });
  });

  it("names the report's account: another IBAN's credits are not the custody account's", () => {
    const other = readBankFile(creditsFile({ exact, short, over }, 'GB33BUKB20201555555555', 'NTF-2'));
    expect(new Set(other.credits?.map((c) => c.accountIban))).toEqual(new Set(['GB33BUKB20201555555555']));
  });

  it('leaves the payout entries as they were: credits without return information change no payout', () => {
    expect(file.entries.every((e) => e.outcome === 'no_change')).toBe(true);
  });
});
