/** `ledger:verify` per milestone: each milestone's invariants and, together, the payment's amounts (docs/money.md). */
import { describe, expect, it } from 'vitest';
import { type MilestoneMoneyRecord, milestoneMoneyViolations } from '../../src/ledger/moneyInvariants.rules';

const ledgerOf = (m: Pick<MilestoneMoneyRecord, 'held' | 'released' | 'refunded' | 'feeCollected'>, deposited: bigint) => ({
  deposited,
  custody: m.held,
  refunded: m.refunded,
  released: m.released,
  fees: m.feeCollected,
});

function milestone(id: string, amount: bigint, over: Partial<MilestoneMoneyRecord> = {}): MilestoneMoneyRecord {
  const m = { id, status: 'in_custody', amount, held: amount, released: 0n, refunded: 0n, feeCollected: 0n, ...over };
  return { ledger: ledgerOf(m, m.status === 'pending_deposit' || m.status === 'cancelled' ? 0n : amount), ...m };
}

// 1000.00 with a 29.99 fee: design released (fee 5.99), build holding 450.00 after a 50.00 refund, launch held.
const design = milestone('ms_design', 20_000n, { status: 'released', held: 0n, released: 20_000n, feeCollected: 599n });
const build = milestone('ms_build', 50_000n, { held: 45_000n, refunded: 5_000n });
const launch = milestone('ms_launch', 30_000n);
const payment = { amount: 100_000n, platformFee: 2_999n, held: 75_000n, released: 20_000n, refunded: 5_000n, feeCollected: 599n };

describe('milestoneMoneyViolations', () => {
  it('finds nothing when every milestone and their sums agree with the payment and the ledger', () => {
    expect(milestoneMoneyViolations(payment, [design, build, launch])).toEqual([]);
    const pending = ['ms_a', 'ms_b'].map((id) => milestone(id, 500n, { status: 'pending_deposit', held: 0n }));
    expect(
      milestoneMoneyViolations({ ...payment, amount: 1_000n, held: 0n, released: 0n, refunded: 0n, feeCollected: 0n }, pending),
    ).toEqual([]);
  });

  it('names a milestone whose amounts do not add up, or fall outside its amount', () => {
    expect(
      milestoneMoneyViolations(payment, [design, { ...build, refunded: 4_000n, ledger: { ...build.ledger, refunded: 4_000n } }, launch]),
    ).toEqual([
      'milestone ms_build: held 45000 + released 0 + refunded 4000 ≠ 50000 deposited',
      "the milestones' refunded sum to 4000, the payment's is 5000",
    ]);
    expect(
      milestoneMoneyViolations(payment, [design, build, { ...launch, held: -1n, ledger: { ...launch.ledger, custody: -1n } }]),
    ).toContain('milestone ms_launch: held -1 is outside 0..30000');
    expect(
      milestoneMoneyViolations(payment, [design, build, { ...launch, held: 30_001n, ledger: { ...launch.ledger, custody: 30_001n } }]),
    ).toContain('milestone ms_launch: held 30001 is outside 0..30000');
  });

  it('names each ledger sum that disagrees with its milestone', () => {
    const moved = { ...build, ledger: { deposited: 1n, custody: 2n, refunded: 3n, released: 4n, fees: 5n } };
    expect(milestoneMoneyViolations(payment, [design, moved, launch])).toEqual([
      'milestone ms_build: the ledger shows 1 deposited, the milestone 50000',
      'milestone ms_build: custody in the ledger 2 ≠ amount_held 45000',
      'milestone ms_build: payer_refunds in the ledger 3 ≠ amount_refunded 5000',
      'milestone ms_build: released in the ledger 4 ≠ amount_released 0',
      'milestone ms_build: platform_fees in the ledger 5 ≠ fee_collected 0',
    ]);
  });

  it('finds money moved between two milestones, which the payment’s own check cannot see', () => {
    const shifted = [design, { ...build, held: 44_000n, refunded: 6_000n }, launch];
    expect(milestoneMoneyViolations({ ...payment, refunded: 6_000n, held: 74_000n }, shifted)).toEqual([
      'milestone ms_build: custody in the ledger 45000 ≠ amount_held 44000',
      'milestone ms_build: payer_refunds in the ledger 5000 ≠ amount_refunded 6000',
    ]);
  });

  it('leaves a single milestone’s own checks to the payment’s (the same numbers), and still sums it', () => {
    const whole = milestone('ms_whole', 100_000n, {
      held: 1n,
      ledger: { deposited: 0n, custody: 0n, refunded: 0n, released: 0n, fees: 0n },
    });
    expect(milestoneMoneyViolations({ ...payment, held: 1n, released: 0n, refunded: 0n, feeCollected: 0n }, [whole])).toEqual([]);
    expect(milestoneMoneyViolations({ ...payment, held: 2n, released: 0n, refunded: 0n, feeCollected: 0n }, [whole])).toEqual([
      "the milestones' held sum to 1, the payment's is 2",
    ]);
  });

  it('names every sum over the milestones that is not the payment’s, the amount included', () => {
    expect(
      milestoneMoneyViolations({ ...payment, amount: 99_999n, held: 1n, released: 2n, refunded: 3n, feeCollected: 4n }, [
        design,
        build,
        launch,
      ]),
    ).toEqual([
      "the milestones' amount sum to 100000, the payment's is 99999",
      "the milestones' held sum to 75000, the payment's is 1",
      "the milestones' released sum to 20000, the payment's is 2",
      "the milestones' refunded sum to 5000, the payment's is 3",
      "the milestones' feeCollected sum to 599, the payment's is 4",
    ]);
  });
});
