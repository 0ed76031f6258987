/**
 * The money rules of docs/money.md, stack-free: the pro-rata fee, the movement each transition
 * makes, the double-entry postings and the balance, with the invariants as fast-check properties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Amounts,
  ENTRY_TYPES,
  LEDGER_ACCOUNTS,
  type MoneyEffect,
  type Movement,
  ZERO_AMOUNTS,
  balanceOf,
  entryTypeOf,
  feeOnReleased,
  isEmptyMovement,
  move,
  postingsOf,
  postingsOfTransfers,
  transfersOf,
  transfersBetween,
  kindOf,
} from '../../src/ledger/ledger.rules';
import { type PaymentMoneyRecord, paymentMoneyViolations } from '../../src/ledger/moneyInvariants.rules';

const NONE: Movement = { deposited: 0n, refunded: 0n, released: 0n, fee: 0n };
const money = { amount: 10_000n, platformFee: 300n };
const held = (h: bigint, rest: Partial<Amounts> = {}): Amounts => ({ ...ZERO_AMOUNTS, held: h, ...rest });

describe('the ledger’s names', () => {
  it('has the account kinds and entry types of docs/money.md', () => {
    expect(LEDGER_ACCOUNTS).toEqual([
      'payer_deposits',
      'custody',
      'recipient_payable',
      'payer_refunds',
      'platform_fees',
      'recipient_pending',
      'recipient_available',
      'recipient_in_transit',
      'recipient_paid_out',
      'custody_bank',
      'unapplied_credit',
    ]);
    expect(ENTRY_TYPES).toEqual([
      'deposit',
      'refund',
      'release',
      'split',
      'make_available',
      'payout',
      'payout_paid',
      'payout_failed',
      'payout_canceled',
      'payout_returned',
      'bank_funding',
      'bank_credit_received',
      'bank_credit_applied',
      'bank_settlement',
      'bank_return_paid',
      'bank_credit_assigned',
    ]);
    expect(ZERO_AMOUNTS).toEqual({ held: 0n, released: 0n, refunded: 0n, feeCollected: 0n });
  });
});

describe('feeOnReleased: floor(platform_fee × released / amount)', () => {
  it('is pro rata, rounded down', () => {
    expect(feeOnReleased(300n, 10_000n, 10_000n)).toBe(300n);
    expect(feeOnReleased(300n, 10_000n, 5_000n)).toBe(150n);
    expect(feeOnReleased(300n, 10_000n, 3_333n)).toBe(99n); // 99.99
    expect(feeOnReleased(1n, 3n, 2n)).toBe(0n); // 0.67
    expect(feeOnReleased(2n, 3n, 2n)).toBe(1n); // 1.33
    expect(feeOnReleased(300n, 10_000n, 0n)).toBe(0n);
    expect(feeOnReleased(0n, 10_000n, 10_000n)).toBe(0n);
  });

  it('never exceeds the platform fee, never decreases as more is released, and is all of it in full (property)', () => {
    fc.assert(
      fc.property(
        fc
          .bigInt({ min: 1n, max: 10n ** 15n })
          .chain((amount) =>
            fc.tuple(
              fc.constant(amount),
              fc.bigInt({ min: 0n, max: amount }),
              fc.bigInt({ min: 0n, max: amount }),
              fc.bigInt({ min: 0n, max: amount }),
            ),
          ),
        ([amount, fee, a, b]) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(feeOnReleased(fee, amount, hi)).toBeLessThanOrEqual(fee);
          expect(feeOnReleased(fee, amount, lo)).toBeGreaterThanOrEqual(0n);
          expect(feeOnReleased(fee, amount, lo)).toBeLessThanOrEqual(feeOnReleased(fee, amount, hi));
          expect(feeOnReleased(fee, amount, amount)).toBe(fee);
        },
      ),
    );
  });
});

describe('move: each effect of the transition table', () => {
  it('none moves nothing', () => {
    const before = held(10_000n);
    expect(move('none', money, before)).toEqual({ ok: true, movement: NONE, after: before });
  });

  it('deposit puts the whole amount in custody', () => {
    expect(move('deposit', money, ZERO_AMOUNTS)).toEqual({
      ok: true,
      movement: { ...NONE, deposited: 10_000n },
      after: { ...ZERO_AMOUNTS, held: 10_000n },
    });
  });

  it('refund_rest gives back everything still held', () => {
    expect(move('refund_rest', money, held(4_000n, { refunded: 6_000n }))).toEqual({
      ok: true,
      movement: { ...NONE, refunded: 4_000n },
      after: { held: 0n, released: 0n, refunded: 10_000n, feeCollected: 0n },
    });
  });

  it('refund_part gives back part, the rest stays held', () => {
    expect(move('refund_part', money, held(10_000n), 2_500n)).toEqual({
      ok: true,
      movement: { ...NONE, refunded: 2_500n },
      after: { held: 7_500n, released: 0n, refunded: 2_500n, feeCollected: 0n },
    });
    expect(move('refund_part', money, held(7_500n, { refunded: 2_500n }), 7_499n)).toEqual({
      ok: true,
      movement: { ...NONE, refunded: 7_499n },
      after: { held: 1n, released: 0n, refunded: 9_999n, feeCollected: 0n },
    });
  });

  it('release_rest releases everything held, with the fee on all released so far', () => {
    expect(move('release_rest', money, held(10_000n))).toEqual({
      ok: true,
      movement: { ...NONE, released: 10_000n, fee: 300n },
      after: { held: 0n, released: 10_000n, refunded: 0n, feeCollected: 300n },
    });
    // After a partial refund of 2500: 7500 released, fee floor(300 × 7500 / 10000) = 225.
    expect(move('release_rest', money, held(7_500n, { refunded: 2_500n }))).toEqual({
      ok: true,
      movement: { ...NONE, released: 7_500n, fee: 225n },
      after: { held: 0n, released: 7_500n, refunded: 2_500n, feeCollected: 225n },
    });
  });

  it('release_rest charges only the fee not yet collected on what was released before', () => {
    // 50.00 released earlier with 1.50 collected; releasing the other 50.00 completes the fee: 1.50 more.
    expect(move('release_rest', money, held(5_000n, { released: 5_000n, feeCollected: 150n }))).toEqual({
      ok: true,
      movement: { ...NONE, released: 5_000n, fee: 150n },
      after: { held: 0n, released: 10_000n, refunded: 0n, feeCollected: 300n },
    });
  });

  it('split refunds part and releases the rest in one movement', () => {
    expect(move('split', { amount: 10_000n, platformFee: 333n }, held(10_000n), 3_001n)).toEqual({
      ok: true,
      movement: { deposited: 0n, refunded: 3_001n, released: 6_999n, fee: 233n }, // floor(333 × 6999 / 10000) = 233.06…
      after: { held: 0n, released: 6_999n, refunded: 3_001n, feeCollected: 233n },
    });
  });

  it.each([
    ['refund_part', 'amount'],
    ['split', 'refund_amount'],
  ] as const)('%s refuses a part that is not > 0 and < held, naming %s', (effect, field) => {
    for (const part of [undefined, 0n, -1n]) {
      expect(move(effect, money, held(5_000n), part)).toEqual({ ok: false, field, message: `${field} must be greater than 0` });
    }
    for (const part of [5_000n, 5_001n]) {
      expect(move(effect, money, held(5_000n), part)).toEqual({ ok: false, field, message: `${field} must be less than the amount held` });
    }
    expect(move(effect, money, held(5_000n), 4_999n).ok).toBe(true);
    expect(move(effect, money, held(5_000n), 1n).ok).toBe(true);
  });
});

describe('movements and postings', () => {
  it('isEmptyMovement: only when every part is 0', () => {
    expect(isEmptyMovement(NONE)).toBe(true);
    for (const key of ['deposited', 'refunded', 'released', 'fee'] as const)
      expect(isEmptyMovement({ ...NONE, [key]: 1n }), key).toBe(false);
  });

  it('entryTypeOf: deposit, split, release or refund', () => {
    expect(entryTypeOf({ ...NONE, deposited: 1n })).toBe('deposit');
    expect(entryTypeOf({ ...NONE, refunded: 1n, released: 1n })).toBe('split');
    expect(entryTypeOf({ ...NONE, released: 1n })).toBe('release');
    expect(entryTypeOf({ ...NONE, refunded: 1n })).toBe('refund');
  });

  it('postingsOf: the postings of docs/money.md, in account order, without zero lines', () => {
    expect(postingsOf({ ...NONE, deposited: 10_000n })).toEqual([
      { account: 'payer_deposits', amount: -10_000n },
      { account: 'custody', amount: 10_000n },
    ]);
    expect(postingsOf({ ...NONE, refunded: 2_500n })).toEqual([
      { account: 'custody', amount: -2_500n },
      { account: 'payer_refunds', amount: 2_500n },
    ]);
    expect(postingsOf({ ...NONE, released: 7_500n, fee: 225n })).toEqual([
      { account: 'custody', amount: -7_500n },
      { account: 'recipient_payable', amount: 7_275n },
      { account: 'platform_fees', amount: 225n },
    ]);
    expect(postingsOf({ ...NONE, released: 7_500n })).toEqual([
      { account: 'custody', amount: -7_500n },
      { account: 'recipient_payable', amount: 7_500n },
    ]);
    expect(postingsOf({ deposited: 0n, refunded: 3_001n, released: 6_999n, fee: 233n })).toEqual([
      { account: 'custody', amount: -10_000n },
      { account: 'recipient_payable', amount: 6_766n },
      { account: 'payer_refunds', amount: 3_001n },
      { account: 'platform_fees', amount: 233n },
    ]);
    expect(postingsOf(NONE)).toEqual([]);
  });

  it('transfersOf: a step as transfers between addresses; its postings their net, a release to a recipient on its pending', () => {
    const split = { deposited: 0n, refunded: 3_001n, released: 6_999n, fee: 233n };
    const transfers = transfersOf(split, { paymentId: 'pay_1', recipientId: 'rcp_1' });
    expect(transfers).toEqual([
      { debit: 'escrow:pay_1', credit: 'payer_refunds', amount: 3_001n },
      { debit: 'escrow:pay_1', credit: 'recipient:rcp_1:pending', amount: 6_766n },
      { debit: 'escrow:pay_1', credit: 'platform_fees', amount: 233n },
    ]);
    expect(postingsOfTransfers(transfers)).toEqual([
      { account: 'custody', address: 'escrow:pay_1', amount: -10_000n },
      { account: 'payer_refunds', address: 'payer_refunds', amount: 3_001n },
      { account: 'platform_fees', address: 'platform_fees', amount: 233n },
      { account: 'recipient_pending', address: 'recipient:rcp_1:pending', amount: 6_766n },
    ]);
    expect(transfersOf(NONE, { paymentId: 'pay_1' })).toEqual([]);
    expect(kindOf('recipient:rcp_1:in_transit')).toBe('recipient_in_transit');
    expect(kindOf('escrow:pay_1')).toBe('custody');
    expect(kindOf('platform_fees')).toBe('platform_fees');
  });

  it('transfersBetween: balanced postings as transfers, each debit matched to the credits in order', () => {
    expect(
      transfersBetween([
        { address: 'recipient:r:available', amount: -50n },
        { address: 'recipient:r:in_transit', amount: 50n },
      ]),
    ).toEqual([{ debit: 'recipient:r:available', credit: 'recipient:r:in_transit', amount: 50n }]);
    const postings = [
      { address: 'a', amount: -30n },
      { address: 'b', amount: -20n },
      { address: 'c', amount: 25n },
      { address: 'd', amount: 25n },
    ];
    const transfers = transfersBetween(postings);
    expect(transfers).toEqual([
      { debit: 'a', credit: 'c', amount: 25n },
      { debit: 'a', credit: 'd', amount: 5n },
      { debit: 'b', credit: 'd', amount: 20n },
    ]);
    expect(postingsOfTransfers(transfers).map(({ address, amount }) => ({ address, amount }))).toEqual(
      [...postings].sort((x, y) => (x.address < y.address ? -1 : 1)),
    );
  });

  it('balanceOf: what each account means to the API, 0 where an account has no row', () => {
    // released is gross, as a payment's amount_released: what the recipients are owed plus the fees.
    expect(
      balanceOf({ payer_deposits: -10_000n, custody: 5_000n, recipient_payable: 2_900n, payer_refunds: 2_000n, platform_fees: 100n }),
    ).toEqual({ deposited: 10_000n, held: 5_000n, released: 3_000n, releasedNet: 2_900n, refunded: 2_000n, fees: 100n });
    expect(balanceOf({})).toEqual({ deposited: 0n, held: 0n, released: 0n, releasedNet: 0n, refunded: 0n, fees: 0n });
  });
});

describe('a payment’s whole life, as properties', () => {
  /** A deposit, then partial refunds, then a release, a refund of the rest or a split. */
  const life = fc
    .record({
      amount: fc.bigInt({ min: 1n, max: 10n ** 12n }),
      feeShare: fc.double({ min: 0, max: 1, noNaN: true }),
      partials: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
      end: fc.constantFrom<MoneyEffect>('release_rest', 'refund_rest', 'split'),
      splitShare: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ amount, feeShare, ...rest }) => ({ amount, platformFee: BigInt(Math.floor(Number(amount) * feeShare)), ...rest }));

  it('held + released + refunded = amount after every step; the fee never exceeds platform_fee; postings sum to zero', () => {
    fc.assert(
      fc.property(life, ({ amount, platformFee, partials, end, splitShare }) => {
        const m = { amount, platformFee };
        let a = ZERO_AMOUNTS;
        const apply = (effect: MoneyEffect, part?: bigint) => {
          const r = move(effect, m, a, part);
          if (!r.ok) return false;
          expect(r.after.held + r.after.released + r.after.refunded).toBe(amount);
          expect(r.after.feeCollected).toBeLessThanOrEqual(platformFee);
          expect(r.after.feeCollected).toBeGreaterThanOrEqual(0n);
          for (const v of Object.values(r.movement)) expect(v).toBeGreaterThanOrEqual(0n);
          expect(postingsOf(r.movement).reduce((s, p) => s + p.amount, 0n)).toBe(0n);
          fees += r.movement.fee;
          a = r.after;
          return true;
        };
        let fees = 0n;
        expect(apply('deposit')).toBe(true);
        for (const share of partials) apply('refund_part', BigInt(Math.floor(Number(a.held) * share)));
        apply(end, end === 'split' ? BigInt(Math.floor(Number(a.held) * splitShare)) : undefined);
        expect(fees).toBe(a.feeCollected);
        if (a.held === 0n && a.released > 0n) expect(a.feeCollected).toBe(feeOnReleased(platformFee, amount, a.released));
        if (a.released === amount) expect(a.feeCollected).toBe(platformFee);
      }),
    );
  });
});

describe('paymentMoneyViolations (what ledger:verify reports per payment)', () => {
  /** 100.00 with a 5.00 fee: 20.00 refunded, 80.00 released, fee floor(500 × 8000 / 10000) = 400. */
  const sound: PaymentMoneyRecord = {
    status: 'released',
    amount: 10_000n,
    platformFee: 500n,
    held: 0n,
    released: 8_000n,
    refunded: 2_000n,
    feeCollected: 400n,
    ledger: { deposited: 10_000n, custody: 0n, refunded: 2_000n, released: 8_000n, fees: 400n },
  };

  it('finds nothing wrong with a sound payment, deposited or not', () => {
    expect(paymentMoneyViolations(sound)).toEqual([]);
    const none = { deposited: 0n, custody: 0n, refunded: 0n, released: 0n, fees: 0n };
    for (const status of ['pending_deposit', 'cancelled']) {
      expect(paymentMoneyViolations({ ...sound, status, released: 0n, refunded: 0n, feeCollected: 0n, ledger: none }), status).toEqual([]);
    }
    expect(
      paymentMoneyViolations({
        ...sound,
        status: 'in_custody',
        held: 10_000n,
        released: 0n,
        refunded: 0n,
        feeCollected: 0n,
        ledger: { ...none, deposited: 10_000n, custody: 10_000n },
      }),
    ).toEqual([]);
  });

  it('names each broken invariant in a sentence', () => {
    expect(
      paymentMoneyViolations({ ...sound, held: -1n, refunded: 2_001n, ledger: { ...sound.ledger, custody: -1n, refunded: 2_001n } }),
    ).toEqual(['held -1 is outside 0..10000']);
    expect(
      paymentMoneyViolations({
        ...sound,
        held: 10_001n,
        released: -2_001n,
        ledger: { ...sound.ledger, custody: 10_001n, released: -2_001n },
      }),
    ).toEqual(['held 10001 is outside 0..10000', 'fee_collected 400 is not floor(platform_fee × released / amount)']);
    expect(paymentMoneyViolations({ ...sound, refunded: 1_999n, ledger: { ...sound.ledger, refunded: 1_999n } })).toEqual([
      'held 0 + released 8000 + refunded 1999 ≠ 10000 deposited',
    ]);
    expect(paymentMoneyViolations({ ...sound, status: 'cancelled' })).toEqual([
      'held 0 + released 8000 + refunded 2000 ≠ 0 deposited',
      'the ledger shows 10000 deposited, the payment 0',
    ]);
    expect(paymentMoneyViolations({ ...sound, feeCollected: 501n, ledger: { ...sound.ledger, fees: 501n } })).toEqual([
      'fee_collected 501 exceeds platform_fee 500',
      'fee_collected 501 is not floor(platform_fee × released / amount)',
    ]);
    expect(paymentMoneyViolations({ ...sound, feeCollected: 401n, ledger: { ...sound.ledger, fees: 401n } })).toEqual([
      'fee_collected 401 is not floor(platform_fee × released / amount)',
    ]);
    expect(paymentMoneyViolations({ ...sound, feeCollected: 500n, ledger: { ...sound.ledger, fees: 500n } })).toEqual([
      'fee_collected 500 is not floor(platform_fee × released / amount)',
    ]);
    expect(paymentMoneyViolations({ ...sound, ledger: { ...sound.ledger, deposited: 9_999n } })).toEqual([
      'the ledger shows 9999 deposited, the payment 10000',
    ]);
    expect(paymentMoneyViolations({ ...sound, ledger: { ...sound.ledger, custody: 1n } })).toEqual([
      'custody in the ledger 1 ≠ amount_held 0',
    ]);
    expect(paymentMoneyViolations({ ...sound, ledger: { ...sound.ledger, refunded: 1n } })).toEqual([
      'payer_refunds in the ledger 1 ≠ amount_refunded 2000',
    ]);
    expect(paymentMoneyViolations({ ...sound, ledger: { ...sound.ledger, released: 1n } })).toEqual([
      'released in the ledger 1 ≠ amount_released 8000',
    ]);
    expect(paymentMoneyViolations({ ...sound, ledger: { ...sound.ledger, fees: 1n } })).toEqual([
      'platform_fees in the ledger 1 ≠ fee_collected 400',
    ]);
  });

  it('reports a zero amount instead of dividing by it', () => {
    expect(
      paymentMoneyViolations({
        ...sound,
        amount: 0n,
        released: 0n,
        refunded: 0n,
        feeCollected: 0n,
        platformFee: 0n,
        status: 'pending_deposit',
        ledger: { deposited: 0n, custody: 0n, refunded: 0n, released: 0n, fees: 0n },
      }),
    ).toEqual(['fee_collected 0 is not floor(platform_fee × released / amount)']);
  });
});
