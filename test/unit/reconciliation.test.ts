/**
 * The custody account's statements, read and compared (docs/reconciliation.md), pure: the camt.053
 * reader on the issue's fixtures (test/fixtures/bank-files/statements/), a statement of another
 * account refused, and the comparison's rules — matching by reference and amount, the kinds of
 * break, the reconciling items' banking days, the summary Temporal's UI shows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BankFileError } from '../../src/payouts/bankFileErrors.format';
import { DEFAULT_LIMITS } from '../../src/payouts/bankFileRead.format';
import { type BankEntry, bankingDaysBetween, reconcile, summaryOf } from '../../src/reconciliation/reconciliation.rules';
import { readStatement } from '../../src/reconciliation/statement.format';

const DIR = path.join(__dirname, '..', 'fixtures', 'bank-files', 'statements');
const CUSTODY = 'DE89 3704 0044 0532 0130 00';
const read = (name: string) => readStatement(fs.readFileSync(path.join(DIR, name)), CUSTODY, DEFAULT_LIMITS);

describe('the camt.053 reader', () => {
  it('reads the balanced day: account, currency, date, OPBD and CLBD, every booked entry with its references', () => {
    const s = read('balanced-day.xml');
    expect(s).toMatchObject({
      messageId: 'STMT-SEK-20261102',
      iban: 'DE89370400440532013000',
      currency: 'SEK',
      date: '2026-11-02',
      openingBalance: 0n,
      closingBalance: 130000n,
    });
    expect(s.entries).toEqual([
      { amount: 100000n, bookedOn: '2026-11-02', entryRef: 'BK-1102-001', endToEndId: null, creditorReference: 'RF61PAYONE' },
      { amount: 50000n, bookedOn: '2026-11-02', entryRef: 'BK-1102-002', endToEndId: null, creditorReference: 'RF42PAYTWO' },
      { amount: -20000n, bookedOn: '2026-11-02', entryRef: 'BK-1102-003', endToEndId: 'po-RECONPAYOUT1', creditorReference: null },
    ]);
  });

  it('reads a bank fee with no reference but the bank’s own, a debit', () => {
    expect(read('bank-fee-unknown.xml').entries).toEqual([
      { amount: -250n, bookedOn: '2026-11-03', entryRef: 'BK-1103-FEE', endToEndId: null, creditorReference: null },
    ]);
  });

  it('reads the inbox’s own statement fixture, its elements under a namespace prefix', () => {
    const s = readStatement(fs.readFileSync(path.join(DIR, '..', 'camt.053.001.08-statement.xml')), CUSTODY, DEFAULT_LIMITS);
    expect(s).toMatchObject({ messageId: 'STMT-20261130-0001', currency: 'EUR', date: '2026-11-30', closingBalance: 993000n });
    expect(s.entries.map((e) => e.amount)).toEqual([-10000n, 3000n]);
  });

  it('refuses a statement of another account than the custody account', () => {
    expect(() => read('another-iban.xml')).toThrow(BankFileError);
    expect(() => read('another-iban.xml')).toThrow(/DE02120300000000202051, not of the custody account/);
  });

  it('refuses what is not a camt.053 statement', () => {
    const other = fs.readFileSync(path.join(DIR, '..', 'camt.054.001.08-debits-and-return.xml'));
    expect(() => readStatement(other, CUSTODY, DEFAULT_LIMITS)).toThrow(/not a camt.053.001.08 statement/);
    const hostile = fs.readFileSync(path.join(DIR, '..', 'hostile-proto-element.xml'));
    expect(() => readStatement(hostile, CUSTODY, DEFAULT_LIMITS)).toThrow(BankFileError);
  });
});

const entry = (amount: bigint, refs: Partial<BankEntry> = {}): BankEntry => ({
  amount,
  bookedOn: '2026-11-02',
  endToEndId: null,
  creditorReference: null,
  entryRef: null,
  ...refs,
});
const statement = { messageId: 'M', date: '2026-11-02', currency: 'SEK', openingBalance: 0n, closingBalance: 1000n };
const base = {
  statement,
  bankEntries: [entry(1000n, { creditorReference: 'RF1' })],
  ledgerBalance: 1000n,
  ledgerEntries: [{ entryId: 'le_1', type: 'bank_funding', amount: 1000n, reference: 'RF1', entryRef: null }],
  owedBalances: 1000n,
  reportedDeposits: [],
  previousClosing: null,
};

describe('the comparison', () => {
  it('balances when every entry matches by reference and amount and the owed money is the custody account’s', () => {
    const r = reconcile(base);
    expect(r).toMatchObject({ status: 'balanced', breaks: [], difference: 0n, owedTotal: 1000n, owedDifference: 0n });
    expect(summaryOf(r, 2)).toBe('balanced');
  });

  it('does not match the same amount under another reference, nor the same reference under another amount', () => {
    expect(reconcile({ ...base, bankEntries: [entry(1000n, { creditorReference: 'RF2' })] }).breaks).toEqual(['unmatched_entries']);
    const r = reconcile({
      ...base,
      bankEntries: [entry(999n, { creditorReference: 'RF1' })],
      statement: { ...statement, closingBalance: 999n },
    });
    expect(r.breaks).toEqual(['closing_balance', 'unmatched_entries']);
    expect(r.difference).toBe(-1n);
    expect(summaryOf(r, 2)).toBe('break of 0.01 SEK');
  });

  it('matches a debit by its EndToEndId, or by the bank’s own reference, each ledger entry once', () => {
    const ledger = [{ entryId: 'le_2', type: 'payout_paid', amount: -200n, reference: 'po-1', entryRef: null }];
    const twice = [entry(-200n, { endToEndId: 'po-1' }), entry(-200n, { endToEndId: 'po-1' })];
    const r = reconcile({
      ...base,
      bankEntries: twice,
      ledgerEntries: ledger,
      ledgerBalance: -200n,
      owedBalances: -200n,
      statement: { ...statement, closingBalance: -400n },
    });
    expect(r.unmatchedBankEntries).toEqual([twice[1]]);
    expect(r.unmatchedLedgerEntries).toEqual([]);
    const byBankRef = [{ entryId: 'le_3', type: 'bank_funding', amount: 1000n, reference: null, entryRef: 'BK-1' }];
    expect(reconcile({ ...base, bankEntries: [entry(1000n, { entryRef: 'BK-1' })], ledgerEntries: byBankRef }).status).toBe('balanced');
  });

  it('lists a ledger entry the bank did not book', () => {
    const r = reconcile({ ...base, bankEntries: [], statement: { ...statement, closingBalance: 0n } });
    expect(r.unmatchedLedgerEntries.map((e) => e.entryId)).toEqual(['le_1']);
    expect(r.difference).toBe(-1000n);
  });

  it('takes reported deposits off the owed money: a reconciling item, not a break, for 3 banking days', () => {
    const reported = [{ paymentId: 'pay_1', amount: 400n, reportedOn: '2026-11-02' }];
    const fresh = reconcile({ ...base, owedBalances: 1400n, reportedDeposits: reported });
    expect(fresh).toMatchObject({ status: 'balanced', owedTotal: 1000n, owedDifference: 0n, reconcilingItems: reported });
    // Monday the 2nd: Thursday the 5th is the third banking day after it, Friday the 6th the fourth.
    expect(
      reconcile({ ...base, owedBalances: 1400n, reportedDeposits: reported, statement: { ...statement, date: '2026-11-05' } }).status,
    ).toBe('balanced');
    expect(
      reconcile({ ...base, owedBalances: 1400n, reportedDeposits: reported, statement: { ...statement, date: '2026-11-06' } }).breaks,
    ).toEqual(['reported_deposit_overdue']);
  });

  it('is a safeguarding break when the owed money is not the custody account’s balance', () => {
    const r = reconcile({ ...base, owedBalances: 1250n });
    expect(r).toMatchObject({ status: 'break', breaks: ['safeguarding'], owedDifference: -250n });
    expect(summaryOf(r, 2)).toBe('break of 2.50 SEK');
  });

  it('is an opening-balance break when the opening is not the last closing', () => {
    expect(reconcile({ ...base, previousClosing: 5n }).breaks).toEqual(['opening_balance']);
    expect(reconcile({ ...base, previousClosing: 0n }).breaks).toEqual([]);
  });

  it('counts banking days Monday to Friday', () => {
    expect(bankingDaysBetween('2026-11-06', '2026-11-09')).toBe(1);
    expect(bankingDaysBetween('2026-11-02', '2026-11-02')).toBe(0);
    expect(bankingDaysBetween('2026-11-02', '2026-11-06')).toBe(4);
  });
});
