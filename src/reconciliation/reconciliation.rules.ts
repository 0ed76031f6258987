/**
 * The reconciliation of one statement of the custody account (docs/reconciliation.md), pure: the
 * bank's closing balance against the ledger's custody bank account, each booked entry against the
 * ledger's entries of the day, the money owed against the custody account (the safeguarding check),
 * the opening balance against the last statement's closing one. A break is shown, never corrected.
 * Integer minor units (bigint) throughout; major units only in the view.
 */
import { formatMinor } from '../ledger/amountText.rules';

/** A booked entry of the statement (+ credit, − debit), as read from camt.053. */
export interface BankEntry {
  amount: bigint;
  bookedOn: string;
  endToEndId: string | null;
  creditorReference: string | null;
  entryRef: string | null;
}

/** A ledger entry booked by the bank on the statement's day, its amount as the bank sees it. */
export interface LedgerBankEntry {
  entryId: string;
  type: string;
  amount: bigint;
  reference: string | null;
  entryRef: string | null;
}

/** A deposit the platform reported (funding "api") not yet matched by a booked credit. */
export interface ReportedDeposit {
  paymentId: string;
  amount: bigint;
  reportedOn: string;
}

export const BREAK_KINDS = [
  /** The bank's closing balance is not the ledger's. */
  'closing_balance',
  /** A booked entry of the bank the ledger does not have, or the other way round. */
  'unmatched_entries',
  /** The money owed is not the custody account's balance in the ledger, less the reconciling items. */
  'safeguarding',
  /** The opening balance is not the last statement's closing balance. */
  'opening_balance',
  /** A reported deposit still not seen at the bank after its banking days. */
  'reported_deposit_overdue',
] as const;
export type BreakKind = (typeof BREAK_KINDS)[number];

/** How many banking days a reported deposit may wait for its booked credit before it is a break. */
export const REPORTED_DEPOSIT_BANKING_DAYS = 3;

export interface ReconciliationInput {
  statement: { messageId: string; date: string; currency: string; openingBalance: bigint | null; closingBalance: bigint };
  bankEntries: readonly BankEntry[];
  ledgerBalance: bigint;
  ledgerEntries: readonly LedgerBankEntry[];
  /** Σ owed balances before the reconciling items are taken off (docs/reconciliation.md). */
  owedBalances: bigint;
  reportedDeposits: readonly ReportedDeposit[];
  /** The closing balance of the last statement reconciled before this one's date, if any. */
  previousClosing: bigint | null;
}

export interface Reconciliation {
  statement: string;
  date: string;
  currency: string;
  bankOpening: bigint | null;
  bankClosing: bigint;
  ledgerBalance: bigint;
  difference: bigint;
  owedTotal: bigint;
  owedDifference: bigint;
  reconcilingItems: ReportedDeposit[];
  unmatchedBankEntries: BankEntry[];
  unmatchedLedgerEntries: LedgerBankEntry[];
  breaks: BreakKind[];
  status: 'balanced' | 'break';
}

/** Whether a bank entry is this ledger entry: the same signed amount and one reference in common. */
export function sameBooking(bank: BankEntry, ledger: LedgerBankEntry): boolean {
  if (bank.amount !== ledger.amount) return false;
  if (bank.entryRef !== null && bank.entryRef === ledger.entryRef) return true;
  return ledger.reference !== null && (ledger.reference === bank.endToEndId || ledger.reference === bank.creditorReference);
}

/** Each bank entry matched to at most one ledger entry, in order; what is left on either side. */
export function matchEntries(bank: readonly BankEntry[], ledger: readonly LedgerBankEntry[]) {
  const left = [...ledger];
  const unmatchedBank: BankEntry[] = [];
  for (const entry of bank) {
    const i = left.findIndex((l) => sameBooking(entry, l));
    if (i < 0) unmatchedBank.push(entry);
    else left.splice(i, 1);
  }
  return { unmatchedBank, unmatchedLedger: left };
}

/** Monday to Friday between two ISO days (after `from`, up to and including `to`); no holiday calendar. */
export function bankingDaysBetween(from: string, to: string): number {
  let n = 0;
  const day = new Date(`${from}T00:00:00Z`);
  const end = new Date(`${to}T00:00:00Z`);
  while (day < end) {
    day.setUTCDate(day.getUTCDate() + 1);
    const weekday = day.getUTCDay();
    if (weekday !== 0 && weekday !== 6) n += 1;
  }
  return n;
}

export function reconcile(input: ReconciliationInput): Reconciliation {
  const { statement } = input;
  const { unmatchedBank, unmatchedLedger } = matchEntries(input.bankEntries, input.ledgerEntries);
  const reconciling = input.reportedDeposits.reduce((sum, d) => sum + d.amount, 0n);
  const owedTotal = input.owedBalances - reconciling;
  const difference = statement.closingBalance - input.ledgerBalance;
  const owedDifference = input.ledgerBalance - owedTotal;
  const breaks: BreakKind[] = [];
  if (difference !== 0n) breaks.push('closing_balance');
  if (unmatchedBank.length + unmatchedLedger.length > 0) breaks.push('unmatched_entries');
  if (owedDifference !== 0n) breaks.push('safeguarding');
  if (input.previousClosing !== null && statement.openingBalance !== null && statement.openingBalance !== input.previousClosing)
    breaks.push('opening_balance');
  if (input.reportedDeposits.some((d) => bankingDaysBetween(d.reportedOn, statement.date) > REPORTED_DEPOSIT_BANKING_DAYS))
    breaks.push('reported_deposit_overdue');
  return {
    statement: statement.messageId,
    date: statement.date,
    currency: statement.currency,
    bankOpening: statement.openingBalance,
    bankClosing: statement.closingBalance,
    ledgerBalance: input.ledgerBalance,
    difference,
    owedTotal,
    owedDifference,
    reconcilingItems: [...input.reportedDeposits],
    unmatchedBankEntries: unmatchedBank,
    unmatchedLedgerEntries: unmatchedLedger,
    breaks,
    status: breaks.length === 0 ? 'balanced' : 'break',
  };
}

/** What the workflow shows in Temporal's UI: "balanced", or "break of 12.50 EUR" (the larger of the two differences). */
export function summaryOf(r: { status: string; difference: bigint; owedDifference: bigint; currency: string }, exponent: number): string {
  if (r.status === 'balanced') return 'balanced';
  const abs = (n: bigint) => (n < 0n ? -n : n);
  const size = abs(r.difference) >= abs(r.owedDifference) ? abs(r.difference) : abs(r.owedDifference);
  return `break of ${formatMinor(size, exponent)} ${r.currency}`;
}
