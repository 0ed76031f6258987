/**
 * The invariants of docs/money.md that `ledger:verify` checks for each payment and each of its
 * milestones: the read model's amounts against each other and against the sums of the payment's
 * postings, each broken one as a sentence. Pure, integer minor units as bigint.
 */
import { feeOnReleased } from './ledger.rules';

/** One payment as `ledger:verify` sees it: the read model's amounts beside the sums of its postings (minor units). */
export interface PaymentMoneyRecord {
  status: string;
  amount: bigint;
  platformFee: bigint;
  held: bigint;
  released: bigint;
  refunded: bigint;
  feeCollected: bigint;
  /** Received by bank transfer before its deposit (docs/bank.md); 0 for a payment the platform funds. */
  received?: bigint;
  /** Sums of the payment's postings: payer_deposits (negated), custody, payer_refunds, recipient_payable + platform_fees, platform_fees. */
  ledger: { deposited: bigint; custody: bigint; refunded: bigint; released: bigint; fees: bigint };
}

/** Statuses in which nothing has been deposited. */
const NOTHING_DEPOSITED: readonly string[] = ['pending_deposit', 'cancelled'];

/** Every invariant of docs/money.md that one payment can break; each broken one as a sentence. */
export function paymentMoneyViolations(p: PaymentMoneyRecord): string[] {
  const out: string[] = [];
  const expect = (ok: boolean, message: string) => {
    if (!ok) out.push(message);
  };
  const deposited = NOTHING_DEPOSITED.includes(p.status) ? 0n : p.amount;
  // A payment partly funded by transfer holds what it received in its custody until the rest comes.
  const receiving = p.status === 'pending_deposit' ? (p.received ?? 0n) : 0n;
  expect(p.held >= 0n && p.held <= p.amount, `held ${p.held} is outside 0..${p.amount}`);
  expect(
    p.held + p.released + p.refunded === deposited,
    `held ${p.held} + released ${p.released} + refunded ${p.refunded} ≠ ${deposited} deposited`,
  );
  expect(p.feeCollected <= p.platformFee, `fee_collected ${p.feeCollected} exceeds platform_fee ${p.platformFee}`);
  expect(
    p.amount > 0n && p.feeCollected === feeOnReleased(p.platformFee, p.amount, p.released),
    `fee_collected ${p.feeCollected} is not floor(platform_fee × released / amount)`,
  );
  expect(
    p.ledger.deposited === deposited + receiving,
    `the ledger shows ${p.ledger.deposited} deposited, the payment ${deposited + receiving}`,
  );
  expect(p.ledger.custody === p.held + receiving, `custody in the ledger ${p.ledger.custody} ≠ amount_held ${p.held + receiving}`);
  expect(p.ledger.refunded === p.refunded, `payer_refunds in the ledger ${p.ledger.refunded} ≠ amount_refunded ${p.refunded}`);
  expect(p.ledger.released === p.released, `released in the ledger ${p.ledger.released} ≠ amount_released ${p.released}`);
  expect(p.ledger.fees === p.feeCollected, `platform_fees in the ledger ${p.ledger.fees} ≠ fee_collected ${p.feeCollected}`);
  return out;
}

/** One milestone as `ledger:verify` sees it: the read model's amounts beside the sums of its postings (minor units). */
export interface MilestoneMoneyRecord {
  id: string;
  status: string;
  amount: bigint;
  held: bigint;
  released: bigint;
  refunded: bigint;
  feeCollected: bigint;
  ledger: PaymentMoneyRecord['ledger'];
}

/**
 * Every invariant of docs/money.md that a payment's milestones can break, each as a sentence: each
 * milestone's own (as a payment's, its fee aside; with one milestone they are the payment's own) and,
 * together, the payment's amounts.
 */
export function milestoneMoneyViolations(p: Omit<PaymentMoneyRecord, 'ledger' | 'status'>, milestones: MilestoneMoneyRecord[]): string[] {
  const out: string[] = [];
  const expect = (ok: boolean, message: string) => {
    if (!ok) out.push(message);
  };
  const total = { amount: 0n, held: 0n, released: 0n, refunded: 0n, feeCollected: 0n };
  for (const m of milestones) {
    for (const k of ['amount', 'held', 'released', 'refunded', 'feeCollected'] as const) total[k] += m[k];
    // One milestone's own checks are its payment's, already reported: only the sums below are new.
    if (milestones.length === 1) continue;
    const deposited = NOTHING_DEPOSITED.includes(m.status) ? 0n : m.amount;
    expect(m.held >= 0n && m.held <= m.amount, `milestone ${m.id}: held ${m.held} is outside 0..${m.amount}`);
    expect(
      m.held + m.released + m.refunded === deposited,
      `milestone ${m.id}: held ${m.held} + released ${m.released} + refunded ${m.refunded} ≠ ${deposited} deposited`,
    );
    expect(
      m.ledger.deposited === deposited,
      `milestone ${m.id}: the ledger shows ${m.ledger.deposited} deposited, the milestone ${deposited}`,
    );
    expect(m.ledger.custody === m.held, `milestone ${m.id}: custody in the ledger ${m.ledger.custody} ≠ amount_held ${m.held}`);
    expect(
      m.ledger.refunded === m.refunded,
      `milestone ${m.id}: payer_refunds in the ledger ${m.ledger.refunded} ≠ amount_refunded ${m.refunded}`,
    );
    expect(
      m.ledger.released === m.released,
      `milestone ${m.id}: released in the ledger ${m.ledger.released} ≠ amount_released ${m.released}`,
    );
    expect(
      m.ledger.fees === m.feeCollected,
      `milestone ${m.id}: platform_fees in the ledger ${m.ledger.fees} ≠ fee_collected ${m.feeCollected}`,
    );
  }
  for (const k of ['amount', 'held', 'released', 'refunded', 'feeCollected'] as const) {
    expect(total[k] === p[k], `the milestones' ${k} sum to ${total[k]}, the payment's is ${p[k]}`);
  }
  return out;
}
