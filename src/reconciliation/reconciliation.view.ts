/**
 * A reconciliation as the operator reads it (`npm run reconcile -- list --json | show ID`;
 * docs/reconciliation.md): amounts in the currency's major unit, as the API shows them
 * (src/ledger/amountText.rules.ts `majorOf`), `difference` the bank's closing balance less the
 * ledger's, `owed_difference` the ledger's less what is owed.
 */
import { majorOf } from '../ledger/amountText.rules';

/** The stored row, as the view needs it (src/reconciliation/reconciliations.repository.ts). */
export interface StoredReconciliation {
  id: string;
  statement_message_id: string;
  statement_id: string;
  date: string;
  currency: string;
  exponent: number;
  bank_opening_minor: string | null;
  bank_closing_minor: string;
  ledger_balance_minor: string;
  owed_total_minor: string;
  reconciling_items: { payment: string; amount_minor: string; reported_on: string }[];
  unmatched_bank_entries: {
    amount_minor: string;
    booked_on: string;
    end_to_end_id: string | null;
    reference: string | null;
    bank_entry_ref: string | null;
  }[];
  unmatched_ledger_entries: {
    entry: string;
    type: string;
    amount_minor: string;
    reference: string | null;
    bank_entry_ref: string | null;
  }[];
  breaks: string[];
  status: 'balanced' | 'break';
  created_at: Date;
  reconciled_at: Date;
}

export function reconciliationView(row: StoredReconciliation) {
  const major = (minor: string | bigint) => majorOf(BigInt(minor), row.exponent);
  const closing = BigInt(row.bank_closing_minor);
  const ledger = BigInt(row.ledger_balance_minor);
  const owed = BigInt(row.owed_total_minor);
  return {
    id: row.id,
    statement: row.statement_message_id,
    statement_id: row.statement_id,
    date: row.date,
    currency: row.currency,
    bank_opening_balance: row.bank_opening_minor === null ? null : major(row.bank_opening_minor),
    bank_closing_balance: major(closing),
    ledger_balance: major(ledger),
    difference: major(closing - ledger),
    owed_total: major(owed),
    owed_difference: major(ledger - owed),
    reconciling_items: row.reconciling_items.map(({ amount_minor, ...rest }) => ({
      kind: 'reported_not_seen_at_bank' as const,
      ...rest,
      amount: major(amount_minor),
    })),
    unmatched_bank_entries: row.unmatched_bank_entries.map(({ amount_minor, ...rest }) => ({ ...rest, amount: major(amount_minor) })),
    unmatched_ledger_entries: row.unmatched_ledger_entries.map(({ amount_minor, ...rest }) => ({ ...rest, amount: major(amount_minor) })),
    breaks: row.breaks,
    status: row.status,
    created_at: row.created_at.toISOString(),
    reconciled_at: row.reconciled_at.toISOString(),
  };
}

export type ReconciliationView = ReturnType<typeof reconciliationView>;
