/** A bank credit as the API and its events show it (src/payouts/bankCredit.view.ts): the debtor as last4 only. */
import { describe, expect, it } from 'vitest';
import { BANK_CREDIT_EVENTS } from '../../src/payouts/bankCredit.rules';
import { bankCreditEnvelope, bankCreditView } from '../../src/payouts/bankCredit.view';
import { WEBHOOK_EVENTS } from '../../src/webhooks/webhookEvents.rules';

const credit = {
  id: 'bc_1',
  amount_minor: 12345n,
  currency: 'EUR',
  exponent: 2,
  reference: 'RF18539007547034',
  status: 'unapplied' as const,
  payment_id: null,
  bank_file_id: 'bf_1',
  booked_on: '2026-12-06',
  debtor_last4: '2606',
  livemode: true,
  created_at: new Date('2026-12-06T10:00:00Z'),
  version: 2,
  updated_at: new Date('2026-12-06T11:00:00Z'),
};

describe('bank credit events', () => {
  it('are received, applied and returned, and a webhook configuration may name each', () => {
    expect(BANK_CREDIT_EVENTS).toEqual(['bank_credit.received', 'bank_credit.applied', 'bank_credit.returned']);
    for (const event of BANK_CREDIT_EVENTS) expect(WEBHOOK_EVENTS).toContain(event);
  });

  it("carry the credit as the API shows it, its id, its version as the sequence and its last change's time", () => {
    expect(bankCreditEnvelope(credit, 'bank_credit.returned')).toEqual({
      event: 'bank_credit.returned',
      bank_credit_id: 'bc_1',
      timestamp: '2026-12-06T11:00:00.000Z',
      sequence: 2,
      data: {
        id: 'bc_1',
        object: 'bank_credit',
        amount: 123.45,
        currency: 'EUR',
        reference: 'RF18539007547034',
        status: 'unapplied',
        payment: null,
        bank_file: 'bf_1',
        booked_at: '2026-12-06',
        debtor_last4: '2606',
        livemode: true,
        created_at: '2026-12-06T10:00:00.000Z',
      },
    });
    expect(bankCreditView(credit)).toEqual(bankCreditEnvelope(credit, 'bank_credit.received').data);
  });
});
