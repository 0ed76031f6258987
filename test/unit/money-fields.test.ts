/**
 * Money crosses text in one place (src/ledger/moneyFields.rules.ts; docs/money.md, "Integers end to
 * end"): a history recorded when payloads carried it as decimal text, and PostgreSQL's JSON columns.
 */
import { describe, expect, it } from 'vitest';
import { moneyJson, withBigintMoney } from '../../src/ledger/moneyFields.rules';

/** A payment and its last step as a history recorded before bigint payloads holds them. */
const recorded = {
  payment: {
    amountMinor: '12550',
    status: 'released',
    version: 4,
    milestones: [{ id: 'ms_1', heldMinor: '0', releasedMinor: '12550', releaseAt: null }],
    disputes: [{ id: 'dp_1', amountMinor: '100', offers: [{ refundMinor: '40', noteHash: '123' }], resolution: null }],
  },
  entry: {
    seq: 4,
    reason: '42',
    movement: { deposited: '0', refunded: '0', released: '12550', fee: '300' },
    changes: [
      { id: 'ms_1', from: 'in_custody', to: 'released', movement: { deposited: '0', refunded: '0', released: '12550', fee: '300' } },
    ],
  },
};

const asBigint = {
  payment: {
    amountMinor: 12550n,
    status: 'released',
    version: 4,
    milestones: [{ id: 'ms_1', heldMinor: 0n, releasedMinor: 12550n, releaseAt: null }],
    disputes: [{ id: 'dp_1', amountMinor: 100n, offers: [{ refundMinor: 40n, noteHash: '123' }], resolution: null }],
  },
  entry: {
    seq: 4,
    reason: '42',
    movement: { deposited: 0n, refunded: 0n, released: 12550n, fee: 300n },
    changes: [{ id: 'ms_1', from: 'in_custody', to: 'released', movement: { deposited: 0n, refunded: 0n, released: 12550n, fee: 300n } }],
  },
};

describe('withBigintMoney', () => {
  it('makes every money field bigint, and nothing else', () => {
    expect(withBigintMoney(recorded)).toEqual(asBigint);
  });

  it('gives a value already holding bigint back equal', () => {
    expect(withBigintMoney(asBigint)).toEqual(asBigint);
  });

  it('leaves a status named like a movement’s field alone outside a movement', () => {
    expect(withBigintMoney({ released: 'yes', fee: '5' })).toEqual({ released: 'yes', fee: '5' });
  });

  it('leaves a client’s metadata and anything not an integer as they are, without throwing', () => {
    const carried = { amountMinor: '100', metadata: { orderMinor: '12', noteMinor: 'x' }, labelMinor: 'ten', oddMinor: '1.5' };
    expect(withBigintMoney(carried)).toEqual({ ...carried, amountMinor: 100n });
  });
});

describe('moneyJson', () => {
  it('writes money as the decimal text the JSON columns keep, read back by withBigintMoney', () => {
    const text = moneyJson(asBigint.payment.milestones);
    expect(JSON.parse(text)).toEqual(recorded.payment.milestones);
    expect(withBigintMoney(JSON.parse(text) as unknown)).toEqual(asBigint.payment.milestones);
  });
});
