/** A recipient's rules and how the API and its webhook show it (docs/concepts.md, "Recipients"). */
import { describe, expect, it } from 'vitest';
import {
  NO_REQUIREMENTS,
  type RecipientState,
  isCountry,
  isPayable,
  payoutsEnabled,
  redactedRecipient,
} from '../../src/recipients/recipients.rules';
import { recipientBalanceView, recipientEnvelope, recipientView } from '../../src/recipients/recipient.view';

const recipient = (over: Partial<RecipientState> = {}): RecipientState => ({
  id: 'rcp_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  accountId: 'acct_1',
  livemode: false,
  email: 'seller@example.com',
  name: 'Seller Ltd',
  country: 'FR',
  type: 'company',
  metadata: { shop: '42' },
  verification: { status: 'verified', requirements: NO_REQUIREMENTS, disabledReason: null },
  payoutsEnabled: true,
  version: 3,
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T11:00:00.000Z',
  ...over,
});

describe('payoutsEnabled', () => {
  it('is true exactly when verified with nothing past due', () => {
    expect(payoutsEnabled({ status: 'verified', requirements: NO_REQUIREMENTS })).toBe(true);
    expect(payoutsEnabled({ status: 'verified', requirements: { ...NO_REQUIREMENTS, currently_due: ['id_document'] } })).toBe(true);
    expect(payoutsEnabled({ status: 'verified', requirements: { ...NO_REQUIREMENTS, past_due: ['id_document'] } })).toBe(false);
    for (const status of ['unverified', 'pending', 'rejected'] as const) {
      expect(payoutsEnabled({ status, requirements: NO_REQUIREMENTS }), status).toBe(false);
    }
  });
});

describe('isPayable', () => {
  it('refuses only a rejected recipient', () => {
    for (const status of ['unverified', 'pending', 'verified'] as const) {
      expect(isPayable(recipient({ verification: { status, requirements: NO_REQUIREMENTS, disabledReason: null } })), status).toBe(true);
    }
    expect(isPayable(recipient({ verification: { status: 'rejected', requirements: NO_REQUIREMENTS, disabledReason: 'fraud' } }))).toBe(
      false,
    );
  });
});

describe('isCountry', () => {
  it('takes ISO 3166-1 alpha-2 codes as the standard writes them, and nothing else', () => {
    for (const code of ['FR', 'US', 'DE', 'JP']) expect(isCountry(code), code).toBe(true);
    for (const code of ['fr', 'XX', 'FRA', '', 'F']) expect(isCountry(code), code).toBe(false);
  });
});

describe('redactedRecipient', () => {
  it('erases e-mail, name and metadata; keeps id, country, type, verification and an absent name', () => {
    const r = redactedRecipient(recipient(), '[redacted]');
    expect(r).toEqual({ ...recipient(), email: '[redacted]', name: '[redacted]', metadata: { redacted: '[redacted]' } });
    const bare = redactedRecipient(recipient({ name: null, metadata: {} }), '[redacted]');
    expect([bare.name, bare.metadata, bare.email]).toEqual([null, {}, '[redacted]']);
  });
});

describe('recipientView', () => {
  it('shows the recipient as the API answers it, its verification in snake case', () => {
    const requirements = {
      currently_due: ['a'],
      past_due: ['b'],
      pending_verification: ['c'],
      errors: [{ requirement: 'd', reason: 'e' }],
    };
    const r = recipient({
      verification: { status: 'pending', requirements, disabledReason: 'requirements.past_due' },
      payoutsEnabled: false,
    });
    expect(recipientView(r)).toEqual({
      id: r.id,
      object: 'recipient',
      email: 'seller@example.com',
      name: 'Seller Ltd',
      country: 'FR',
      type: 'company',
      metadata: { shop: '42' },
      livemode: false,
      verification: { status: 'pending', requirements, disabled_reason: 'requirements.past_due' },
      payouts_enabled: false,
      created_at: '2026-11-27T10:00:00.000Z',
      updated_at: '2026-11-27T11:00:00.000Z',
    });
  });

  it('wraps it in recipient.updated, its sequence the recipient’s version and its time the update’s', () => {
    const r = recipient();
    expect(recipientEnvelope(r)).toEqual({
      event: 'recipient.updated',
      recipient_id: r.id,
      timestamp: '2026-11-27T11:00:00.000Z',
      sequence: 3,
      data: recipientView(r),
    });
  });
});

describe('recipientBalanceView', () => {
  it('sums each balance per currency in major units, a currency at two exponents at the larger, currencies sorted', () => {
    const view = recipientBalanceView('rcp_1', [
      { currency: 'USD', exponent: 2, balance: 'available', amount: 1050n },
      { currency: 'USD', exponent: 3, balance: 'available', amount: 1n },
      { currency: 'USD', exponent: 2, balance: 'pending', amount: 200n },
      { currency: 'EUR', exponent: 2, balance: 'paid_out', amount: 99n },
      { currency: 'EUR', exponent: 2, balance: 'in_transit', amount: 1n },
    ]);
    expect(view).toEqual({
      object: 'recipient_balance',
      recipient: 'rcp_1',
      balances: [
        { currency: 'EUR', pending: 0, available: 0, in_transit: 0.01, paid_out: 0.99 },
        { currency: 'USD', pending: 2, available: 10.501, in_transit: 0, paid_out: 0 },
      ],
    });
  });
});
