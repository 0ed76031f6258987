/** The ledger as the API shows it: an entry with its postings, and the balance per currency, in major units. */
import { describe, expect, it } from 'vitest';
import { BalanceViewSchema, LedgerEntryViewSchema, balanceView, ledgerEntryView } from '../../src/ledger/ledger.view';

describe('ledgerEntryView', () => {
  it('shows every field and each posting in major units, with the entry’s exponent', () => {
    const view = ledgerEntryView({
      id: 'le_01JD0000000000000000000000',
      payment_id: 'pay_1',
      milestone_id: null,
      version: 5,
      type: 'split',
      currency: 'USD',
      exponent: 2,
      livemode: false,
      created_at: new Date('2026-11-24T08:00:00.000Z'),
      postings: [
        { ledger_account: 'custody', address: 'escrow:pay_1', amount_minor: -10_000n },
        { ledger_account: 'recipient_payable', address: 'recipient_payable', amount_minor: 6_766n },
        { ledger_account: 'payer_refunds', address: 'payer_refunds', amount_minor: 3_001n },
        { ledger_account: 'platform_fees', address: 'platform_fees', amount_minor: 233n },
      ],
    });
    expect(view).toStrictEqual({
      id: 'le_01JD0000000000000000000000',
      object: 'ledger_entry',
      payment_id: 'pay_1',
      milestone_id: 'ms_1',
      recipient_id: null,
      version: 5,
      type: 'split',
      currency: 'USD',
      livemode: false,
      created_at: '2026-11-24T08:00:00.000Z',
      postings: [
        { account: 'custody', address: 'escrow:pay_1', amount: -100 },
        { account: 'recipient_payable', address: 'recipient_payable', amount: 67.66 },
        { account: 'payer_refunds', address: 'payer_refunds', amount: 30.01 },
        { account: 'platform_fees', address: 'platform_fees', amount: 2.33 },
      ],
    });
    expect(LedgerEntryViewSchema.parse(view)).toStrictEqual(view);
    expect(
      ledgerEntryView({
        ...{ id: 'x', payment_id: 'p', milestone_id: 'ms_2', version: 1, type: 'deposit', currency: 'HUF', livemode: true },
        exponent: 0,
        created_at: new Date(0),
        postings: [{ ledger_account: 'custody', address: 'escrow:p', amount_minor: 1050n }],
      }).postings,
    ).toEqual([{ account: 'custody', address: 'escrow:p', amount: 1050 }]);
  });

  it('the schema refuses an unknown account or entry type', () => {
    const ok = {
      id: 'x',
      object: 'ledger_entry',
      payment_id: 'p',
      milestone_id: 'ms_p',
      recipient_id: null,
      version: 1,
      type: 'deposit',
      currency: 'USD',
      livemode: false,
      created_at: 'x',
      postings: [],
    };
    expect(LedgerEntryViewSchema.safeParse(ok).success).toBe(true);
    expect(LedgerEntryViewSchema.safeParse({ ...ok, type: 'transfer' }).success).toBe(false);
    expect(LedgerEntryViewSchema.safeParse({ ...ok, postings: [{ account: 'cash', amount: 1 }] }).success).toBe(false);
    expect(LedgerEntryViewSchema.shape.id.description).toBe(
      "le_ + 26 characters, derived from the payment, its version and (with milestones) the milestone, or from a recipient's movement",
    );
    expect(LedgerEntryViewSchema.shape.version.description).toBe(
      "The payment's version this movement made (its history seq), or the recipient's",
    );
    expect(LedgerEntryViewSchema.shape.postings.description).toBe('Every posting of the entry; they sum to zero');
    expect(LedgerEntryViewSchema.shape.postings.element.shape.amount.description).toBe('Major units, signed: the postings sum to 0');
  });
});

describe('balanceView', () => {
  it('one balance per currency, sorted, each account read as the API names it', () => {
    const view = balanceView(true, [
      { currency: 'USD', exponent: 2, ledger_account: 'payer_deposits', balance_minor: -10_000n },
      { currency: 'USD', exponent: 2, ledger_account: 'custody', balance_minor: 2_000n },
      { currency: 'USD', exponent: 2, ledger_account: 'recipient_payable', balance_minor: 5_700n },
      { currency: 'USD', exponent: 2, ledger_account: 'payer_refunds', balance_minor: 2_000n },
      { currency: 'USD', exponent: 2, ledger_account: 'platform_fees', balance_minor: 300n },
      { currency: 'JPY', exponent: 0, ledger_account: 'payer_deposits', balance_minor: -1_500n },
      { currency: 'JPY', exponent: 0, ledger_account: 'custody', balance_minor: 1_500n },
    ]);
    expect(view).toStrictEqual({
      object: 'balance',
      livemode: true,
      balances: [
        { currency: 'JPY', deposited: 1500, held: 1500, released: 0, released_net: 0, refunded: 0, fees: 0 },
        { currency: 'USD', deposited: 100, held: 20, released: 60, released_net: 57, refunded: 20, fees: 3 },
      ],
    });
    expect(BalanceViewSchema.parse(view)).toStrictEqual(view);
  });

  it('brings a currency’s amounts stored with different exponents to the largest, exactly', () => {
    // HUF payments made before exponents were kept (0, ICU's) beside newer ones (2, ISO's).
    const view = balanceView(false, [
      { currency: 'HUF', exponent: 0, ledger_account: 'custody', balance_minor: 1_050n },
      { currency: 'HUF', exponent: 2, ledger_account: 'custody', balance_minor: 1_050n },
      { currency: 'HUF', exponent: 2, ledger_account: 'payer_deposits', balance_minor: -106_050n },
    ]);
    expect(view).toStrictEqual({
      object: 'balance',
      livemode: false,
      balances: [{ currency: 'HUF', deposited: 1060.5, held: 1060.5, released: 0, released_net: 0, refunded: 0, fees: 0 }],
    });
  });

  it('is empty without rows', () => {
    expect(balanceView(false, [])).toStrictEqual({ object: 'balance', livemode: false, balances: [] });
  });

  it('the schema describes each figure', () => {
    const figure = BalanceViewSchema.shape.balances.element.shape;
    expect(figure.deposited.description).toBe('Paid in by payers; = held + released + refunded');
    expect(figure.held.description).toBe('In custody now');
    expect(figure.released.description).toBe(
      "Left custody to recipients, before fees: the sum of payments' amount_released; = released_net + fees",
    );
    expect(figure.released_net.description).toBe('What recipients are owed of released, after fees');
    expect(figure.refunded.description).toBe('Back to payers');
    expect(figure.fees.description).toBe("The platform's fees collected, out of released");
    expect(BalanceViewSchema.safeParse({ object: 'list', livemode: false, balances: [] }).success).toBe(false);
  });
});
