/**
 * A payment's lines in the Temporal UI: the money story an operator needs, and nothing personal
 * (docs/architecture.md, "Personal data"). Apart from the view (src/payments/payment.view.ts) so that
 * the workflow bundle holds neither zod nor the ISO 4217 table: every module it imports runs again
 * at each workflow's start (docs/benchmarks.md).
 */
import { formatMinor } from '../ledger/amountText.rules';
import { type HistoryEntry, type PaymentState } from './paymentTypes.rules';
import { amountsOf, moneyOf } from './paymentMoney.rules';
import type { Movement } from '../ledger/ledger.rules';

const money = (s: PaymentState) => (minor: bigint) => formatMinor(minor, s.amountExponent);

/** One line for the Temporal UI's summary: the amount in major units, the currency and the platform's fee. */
export function summary(s: PaymentState): string {
  const major = money(s);
  return `${major(s.amountMinor)} ${s.currency}, fee ${major(moneyOf(s).platformFee)}`;
}

/**
 * What one step moved, named as the ledger names it: "split: 55.55 refunded, 111.11 released,
 * fee 5.55"; "" when it moved nothing.
 */
export function movementText(s: PaymentState, m: Movement | undefined): string {
  if (!m) return '';
  const major = money(s);
  const { deposited, refunded, released } = m;
  if (deposited > 0n) return `deposit: ${major(deposited)} held`;
  const parts = [
    ...(refunded > 0n ? [`${major(refunded)} refunded`] : []),
    ...(released > 0n ? [`${major(released)} released`, `fee ${major(m.fee)}`] : []),
  ];
  const kind = refunded > 0n && released > 0n ? 'split' : released > 0n ? 'release' : 'refund';
  return `${kind}: ${parts.join(', ')}`;
}

/** An activity's summary for a step: the step, the status it led to, the version, and the money it moved (in the payment's currency). */
export function stepSummary(verb: string, s: PaymentState, entry: HistoryEntry): string {
  const moved = movementText(s, entry.movement);
  const of = entry.milestoneId ? ` ${entry.milestoneId}` : '';
  return `${verb} ${entry.action}${of} → ${entry.to} (v${entry.seq})${moved ? ` — ${moved}` : ''}`;
}

/**
 * The payment's current details in the Temporal UI (markdown): status and amount; what is held,
 * released, refunded and the fee collected; the last step with its actor; on a payment created with
 * milestones, how many are in each status.
 */
export function details(s: PaymentState, last?: HistoryEntry): string {
  const major = money(s);
  const a = amountsOf(s);
  // Two paragraphs: the UI's box shows about three lines; the money each step moved is in its activity's summary.
  const head = `**${s.status}** — ${major(s.amountMinor)} ${s.currency}${last ? ` · last **${last.action}** by ${last.actor}` : ''}`;
  const amounts = `held ${major(a.held)} · released ${major(a.released)} · refunded ${major(a.refunded)} · fee ${major(a.feeCollected)} ${s.currency}`;
  if (!s.staged) return `${head}\n\n${amounts}`;
  const counts = new Map<string, number>();
  for (const m of s.milestones) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
  const milestones = `${s.milestones.length} milestones: ${[...counts].map(([status, n]) => `${n} ${status}`).join(' · ')}`;
  return `${head}\n\n${amounts}\n\n${milestones}`;
}
