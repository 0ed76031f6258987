/**
 * Milestones (docs/concepts.md, "Deals paid in stages"): the parts a payment's amount is released in.
 * The transition table (./payment.ts) applies to each milestone; the payment's status follows its
 * milestones by `PAYMENT_STATUS_RULES`, and a step's events by `STATUS_EVENTS` and
 * `MILESTONE_EVENTS`. A payment created without milestones has one, of its whole amount, and
 * behaves exactly as a payment always has.
 * Pure: no I/O, safe in the workflow sandbox; what a milestone is, is ./paymentTypes.ts's.
 */
import type { Amounts, Movement } from '../ledger/ledger.rules';
import { amountsOf } from './paymentMoney.rules';
import type { HistoryEntry, MilestoneChange, MilestoneState, PaymentEvent, PaymentState, PaymentStatus } from './paymentTypes.rules';

/** At most this many milestones per payment. */
export const MAX_MILESTONES = 50;
export const MAX_REFERENCE_LENGTH = 64;

/** Who the rule looks at: each milestone's status and what it holds and released. */
type Milestoneish = Pick<MilestoneState, 'status' | 'heldMinor' | 'releasedMinor'>;
/** A milestone holding money now. */
export const holdsMoney = (m: Pick<MilestoneState, 'heldMinor'>) => m.heldMinor > 0n;

/**
 * The payment's status from its milestones' (docs/concepts.md): the first rule that holds. With one
 * milestone the payment's status is that milestone's.
 */
export const PAYMENT_STATUS_RULES: readonly { status: PaymentStatus; when: string; holds: (ms: readonly Milestoneish[]) => boolean }[] = [
  { status: 'pending_deposit', when: 'every milestone awaits the deposit', holds: (ms) => ms.every((m) => m.status === 'pending_deposit') },
  { status: 'cancelled', when: 'the payment was cancelled before its deposit', holds: (ms) => ms.every((m) => m.status === 'cancelled') },
  { status: 'disputed', when: 'any milestone is disputed', holds: (ms) => ms.some((m) => m.status === 'disputed') },
  {
    status: 'pending_release',
    when: 'money is held and every milestone holding money is pending release',
    holds: (ms) => ms.some(holdsMoney) && ms.filter(holdsMoney).every((m) => m.status === 'pending_release'),
  },
  { status: 'in_custody', when: 'money is held', holds: (ms) => ms.some(holdsMoney) },
  { status: 'released', when: 'nothing is held and something was released', holds: (ms) => ms.some((m) => m.releasedMinor > 0n) },
  { status: 'refunded', when: 'nothing is held and nothing was released', holds: () => true },
];

export function paymentStatusOf(milestones: readonly Milestoneish[]): PaymentStatus {
  return PAYMENT_STATUS_RULES.find((r) => r.holds(milestones))!.status;
}

/**
 * The spec's event for the status a payment takes (docs/webhooks.md). A return to in_custody from a
 * dispute has none: the milestone events tell it.
 */
export const STATUS_EVENTS: Readonly<Partial<Record<PaymentStatus, { from?: PaymentStatus; event: PaymentEvent }>>> = {
  in_custody: { from: 'pending_deposit', event: 'payment.deposited' },
  pending_release: { event: 'payment.approved' },
  disputed: { event: 'payment.disputed' },
  released: { event: 'payment.released' },
  refunded: { event: 'payment.refunded' },
  cancelled: { event: 'payment.cancelled' },
};

/** The milestone event of a payment with milestones, by the status a milestone takes. */
export const MILESTONE_EVENTS: Readonly<Partial<Record<PaymentStatus, PaymentEvent>>> = {
  pending_release: 'payment.milestone_approved',
  released: 'payment.milestone_released',
  disputed: 'payment.milestone_disputed',
};

/** An emitted event: which one, and the milestone it is about (milestone events only). */
export interface StepEvent {
  event: PaymentEvent;
  milestoneId?: string;
}

/**
 * The events one step emits, in delivery order (docs/webhooks.md): `payment.partially_refunded`
 * when money went back to the payer without the payment becoming refunded (it shows the payment
 * before what the step released), then each milestone event (payments created with milestones
 * only), then the spec's event for the status the payment took; a step of a dispute ends with
 * `payment.dispute_updated`, and a withdrawal, which only returns the money to where it was, emits
 * that alone.
 */
export function stepEvents(
  step: {
    from: PaymentStatus;
    to: PaymentStatus;
    refunded: bigint;
    changes: readonly MilestoneChange[];
    action?: HistoryEntry['action'];
    disputeId?: string;
  },
  staged: boolean,
): StepEvent[] {
  const events: StepEvent[] = [];
  if (step.action !== 'dispute_withdraw') {
    if (step.refunded > 0n && step.to !== 'refunded') events.push({ event: 'payment.partially_refunded' });
    if (staged) {
      for (const c of step.changes) {
        const event = c.from !== c.to ? MILESTONE_EVENTS[c.to] : undefined;
        if (event) events.push({ event, milestoneId: c.id });
      }
    }
    const status = step.from !== step.to ? STATUS_EVENTS[step.to] : undefined;
    if (status && (status.from === undefined || status.from === step.from)) events.push({ event: status.event });
  }
  if (step.disputeId !== undefined) events.push({ event: 'payment.dispute_updated' });
  return events;
}

/** The payment's amounts: the sums of its milestones'. */
export function sumOfMilestones(milestones: readonly MilestoneState[]): Amounts {
  const sum = { held: 0n, released: 0n, refunded: 0n, feeCollected: 0n };
  for (const m of milestones) {
    const a = amountsOf(m);
    sum.held += a.held;
    sum.released += a.released;
    sum.refunded += a.refunded;
    sum.feeCollected += a.feeCollected;
  }
  return sum;
}

/** The id of the one milestone of a payment created without milestones: derived from the payment's. */
export const defaultMilestoneId = (paymentId: string) => `ms_${paymentId.replace(/^pay_/, '')}`;

/** The one milestone of a payment created without milestones: the whole amount and the payment's auto-release. */
export function wholeMilestone(
  p: Pick<PaymentState, 'id' | 'amountMinor' | 'status' | 'autoReleaseAfterSeconds'> &
    Partial<Pick<PaymentState, 'heldMinor' | 'releasedMinor' | 'refundedMinor' | 'feeCollectedMinor'>>,
): MilestoneState {
  return {
    id: defaultMilestoneId(p.id),
    amountMinor: p.amountMinor,
    status: p.status,
    heldMinor: p.heldMinor ?? 0n,
    releasedMinor: p.releasedMinor ?? 0n,
    refundedMinor: p.refundedMinor ?? 0n,
    feeCollectedMinor: p.feeCollectedMinor ?? 0n,
    autoReleaseAfterSeconds: p.autoReleaseAfterSeconds,
    releaseAt: null,
  };
}

/**
 * The ledger entries a step writes: one per milestone whose money it moved (docs/money.md). A step
 * recorded before milestones moved its payment's one milestone's.
 */
export function ledgerMovements(state: Pick<PaymentState, 'id'>, entry: HistoryEntry): { milestoneId: string; movement: Movement }[] {
  if (entry.changes) {
    return entry.changes.flatMap((c) => (c.movement ? [{ milestoneId: c.id, movement: c.movement }] : []));
  }
  return entry.movement ? [{ milestoneId: defaultMilestoneId(state.id), movement: entry.movement }] : [];
}
