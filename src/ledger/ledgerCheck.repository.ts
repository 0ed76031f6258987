/**
 * The ledger check of docs/money.md: every invariant, open payments also against their workflow's
 * own state; and the periodic check, which pages through the payments across runs so that each run
 * takes bounded time whatever their number (its cursor in `ledger_check_state`).
 */
import type { Knex } from 'knex';
import type { MilestoneState, PaymentState, PaymentStatus } from '../payments/paymentTypes.rules';
import { isTerminal } from '../payments/payment.rules';
import { amountsOf } from '../payments/paymentMoney.rules';
import { type LedgerViolation, type PaymentMoneyRow, type PaymentPage, findLedgerViolations } from './ledger.repository';
import { type PayoutWorkflowState, findPayoutViolations } from './payoutCheck.repository';

type WorkflowState = (paymentId: string) => Promise<PaymentState | undefined>;

/**
 * Every invariant of docs/money.md, including, for each open payment, its workflow's own state
 * (`workflowState` queries it; undefined when no workflow answers), and each payout's entries and
 * (`payoutState`) its workflow's status (src/ledger/payoutCheck.repository.ts; `payoutPage` pages them as `page`
 * pages the payments). A workflow ahead of the read model is a projection in flight, not a breach.
 */
export async function verifyLedger(
  db: Knex,
  workflowState: WorkflowState,
  accountId?: string,
  page?: PaymentPage,
  payouts: { state?: PayoutWorkflowState; page?: PaymentPage } = {},
): Promise<{ violations: LedgerViolation[]; checked: PaymentMoneyRow[]; payoutsChecked: string[] }> {
  const { violations, payments } = await findLedgerViolations(db, accountId, page);
  const payoutCheck = await findPayoutViolations(db, payouts.state, accountId, payouts.page);
  violations.push(...payoutCheck.violations);
  const open = payments.filter((p) => !isTerminal(p.status as PaymentStatus));
  // A few queries at a time: the check must not crowd out the payments' own work.
  for (let i = 0; i < open.length; i += 16) {
    const batch = open.slice(i, i + 16);
    const states = await Promise.all(batch.map((p) => workflowState(p.id)));
    batch.forEach((p, k) => {
      const state = states[k];
      if (!state) {
        violations.push({ check: 'workflow_state', paymentId: p.id, message: `no workflow answered for this ${p.status} payment` });
        return;
      }
      if (state.version !== p.version) return;
      const a = amountsOf(state);
      const same = a.held === p.held && a.released === p.released && a.refunded === p.refunded && a.feeCollected === p.feeCollected;
      for (const m of state.milestones) {
        const kept = p.milestones.find((r) => r.id === m.id);
        const w = amountsOf(m);
        // Its status, each amount and its auto-release time: what the API shows of it.
        const shown = (x: MilestoneState) => [x.status, x.heldMinor, x.releasedMinor, x.refundedMinor, x.feeCollectedMinor, x.releaseAt];
        if (!kept || shown(kept).some((v, i) => v !== shown(m)[i])) {
          violations.push({
            check: 'workflow_state',
            paymentId: p.id,
            message: `milestone ${m.id}: the workflow has it ${m.status}, holding ${w.held}, released ${w.released}, refunded ${w.refunded}, fee ${w.feeCollected}, release_at ${m.releaseAt}; the read model ${kept ? shown(kept).map(String).join(', ') : 'does not have it'}`,
          });
        }
      }
      if (!same) {
        violations.push({
          check: 'workflow_state',
          paymentId: p.id,
          message: `the workflow holds ${a.held}, released ${a.released}, refunded ${a.refunded}, fee ${a.feeCollected}; the read model ${p.held}, ${p.released}, ${p.refunded}, ${p.feeCollected}`,
        });
      }
    });
  }
  return { violations, checked: payments, payoutsChecked: payoutCheck.checked };
}

/** The report `ledger:verify` prints: one line per breach, naming the payment. */
export function ledgerReport(violations: LedgerViolation[]): string {
  if (violations.length === 0) return 'ledger verified: every invariant holds';
  return [
    `ledger verification failed: ${violations.length} breach${violations.length === 1 ? '' : 'es'}`,
    ...violations.map((v) => `  [${v.check}]${(v.paymentId ?? v.payoutId) ? ` ${v.paymentId ?? v.payoutId}` : ''}: ${v.message}`),
  ].join('\n');
}

/** What one run of the periodic check did: its breaches, and which payments it covered. */
export interface LedgerCheckRun {
  violations: LedgerViolation[];
  /** How many payments this run checked, the first and last id, and whether it reached the last payment. */
  payments: number;
  first?: string;
  last?: string;
  wrapped: boolean;
}

/**
 * One run of the periodic check named `name`: the ledger-wide invariants, then the `pageSize`
 * payments after where the previous run stopped (from the first again once it reached the last).
 * `fromFirst` starts from the first payment (a full pass by hand). The cursor moves, and
 * `last_success_at` is set, only when the run completes.
 */
export async function runLedgerCheck(
  db: Knex,
  workflowState: WorkflowState,
  opts: { name: string; pageSize: number; fromFirst?: boolean; payoutState?: PayoutWorkflowState },
): Promise<LedgerCheckRun> {
  const { name, pageSize } = opts;
  const state = (await db('ledger_check_state').where({ name }).first()) as
    { after_payment_id: string | null; after_payout_id: string | null } | undefined;
  const after = opts.fromFirst ? null : (state?.after_payment_id ?? null);
  // The payouts are paged as the payments are, on a cursor of their own.
  const afterPayout = opts.fromFirst ? null : (state?.after_payout_id ?? null);
  const { violations, checked, payoutsChecked } = await verifyLedger(
    db,
    workflowState,
    undefined,
    { after, limit: pageSize },
    { state: opts.payoutState, page: { after: afterPayout, limit: pageSize } },
  );
  const wrapped = checked.length < pageSize;
  const row = {
    after_payment_id: wrapped ? null : checked[checked.length - 1].id,
    after_payout_id: payoutsChecked.length < pageSize ? null : payoutsChecked[payoutsChecked.length - 1],
    last_success_at: db.fn.now(),
  };
  await db('ledger_check_state')
    .insert({ name, ...row, passes: wrapped ? 1 : 0 })
    .onConflict('name')
    .merge({ ...row, passes: wrapped ? db.raw('ledger_check_state.passes + 1') : db.raw('ledger_check_state.passes') });
  return { violations, payments: checked.length, first: checked[0]?.id, last: checked[checked.length - 1]?.id, wrapped };
}

/** When the check `name` last completed a run; at its first call, now (the check's clock starts with its first worker). */
export async function ledgerCheckLastSuccess(db: Knex, name: string): Promise<Date> {
  await db('ledger_check_state').insert({ name, after_payment_id: null, last_success_at: db.fn.now() }).onConflict('name').ignore();
  const row = (await db('ledger_check_state').where({ name }).first()) as { last_success_at: Date };
  return new Date(row.last_success_at);
}
