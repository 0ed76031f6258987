/** What `npm run repair` does with one payment, decided from its read model row and its Temporal run (docs/operations.md). */
import { type PaymentStatus } from './paymentTypes.rules';
import { isTerminal } from './payment.rules';

/** The latest run under the payment's workflow id, as Temporal describes it; `missing` when there is none. */
export type RunStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW' | 'TIMED_OUT' | 'missing';

export type RepairDecision =
  /** Nothing to do: the payment is finished, or its run is alive and not behind. */
  | { kind: 'healthy'; why: string }
  /** Start a new run from the read model. */
  | { kind: 'start'; why: string }
  /** The run was reset to a point behind the read model: terminate it, then start from the read model. */
  | { kind: 'replace'; why: string }
  /** A finished payment whose run was stopped: its pending deliveries continue; no new run. */
  | { kind: 'deliveries'; why: string }
  /** A state repair must not guess about: reported for a person to look at. */
  | { kind: 'attention'; why: string };

/** Runs an operator (or a timeout) stopped: Temporal counts these as failed, so the id may be used again. */
const STOPPED: readonly RunStatus[] = ['TERMINATED', 'CANCELLED', 'TIMED_OUT', 'missing'];

export function repairDecision(
  row: { status: PaymentStatus; version: number },
  run: { status: RunStatus; version?: number },
): RepairDecision {
  if (isTerminal(row.status)) {
    if (STOPPED.includes(run.status) && run.status !== 'missing') {
      return { kind: 'deliveries', why: `finished (${row.status}), but its run is ${run.status.toLowerCase()}: its deliveries continue` };
    }
    return { kind: 'healthy', why: `finished (${row.status})` };
  }
  if (STOPPED.includes(run.status)) {
    return {
      kind: 'start',
      why: `${row.status} in the read model, but its run is ${run.status === 'missing' ? 'missing' : run.status.toLowerCase()}`,
    };
  }
  if (run.status === 'RUNNING') {
    if (run.version !== undefined && run.version < row.version) {
      return { kind: 'replace', why: `its run is at version ${run.version}, behind the read model's ${row.version} (reset?)` };
    }
    return { kind: 'healthy', why: `running at version ${run.version ?? '?'}` };
  }
  return { kind: 'attention', why: `${row.status} in the read model, but its run is ${run.status.toLowerCase()}` };
}
