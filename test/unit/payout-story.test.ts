/** A payout's lines in the Temporal UI (src/payouts/payoutSummary.rules.ts). */
import { describe, expect, it } from 'vitest';
import { payoutDetails, payoutStepSummary, payoutSummary } from '../../src/payouts/payoutSummary.rules';

const payout = {
  amountMinor: 1050n,
  amountExponent: 2,
  currency: 'EUR',
  status: 'in_transit' as const,
  bankAccountId: 'ba_1',
  last4: '0002',
  failureCode: null,
};

describe('a payout in the Temporal UI', () => {
  it('tells the amount, the account by last4, and the money each step moved', () => {
    expect(payoutSummary(payout)).toBe('10.50 EUR to ba_1 (…0002)');
    expect(payoutStepSummary(payout, 'create')).toBe('create → pending — 10.50 EUR available → in_transit');
    expect(payoutStepSummary(payout, 'send')).toBe('send → in_transit');
    expect(payoutStepSummary(payout, 'pay')).toBe('pay → paid — 10.50 EUR in_transit → paid_out');
    expect(payoutStepSummary({ ...payout, status: 'returned', failureCode: 'account_closed' }, 'return')).toBe(
      'return → returned (account_closed) — 10.50 EUR paid_out → available',
    );
    expect(payoutDetails({ ...payout, status: 'failed', failureCode: 'no_account' })).toBe(
      '**failed** · no_account — 10.50 EUR to ba_1 (…0002)\n\nmoney: back on available',
    );
    expect(payoutSummary({ ...payout, amountMinor: 1000n, amountExponent: 0, currency: 'JPY' })).toBe('1000 JPY to ba_1 (…0002)');
  });
});
