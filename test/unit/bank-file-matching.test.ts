/** A read bank file matched to payouts (src/payouts/bankFileMatch.format.ts): which steps each entry takes, and what is left for an operator. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PayoutSnapshot, planBankFile } from '../../src/payouts/bankFileMatch.format';
import { type BankFile, readBankFile } from '../../src/payouts/bankFileRead.format';
import { statementOf } from './fixtures';

const read = (name: string) => readBankFile(readFileSync(path.join(__dirname, '../fixtures/bank-files', name), 'utf8'));

const payout = (
  endToEndId: string,
  status: PayoutSnapshot['status'],
  amount: bigint,
  currency = 'EUR',
  messageId: string | null = 'MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F7',
): PayoutSnapshot => ({
  id: endToEndId.replace('-', '_'),
  endToEndId,
  status,
  amount,
  currency,
  messageId,
});
const byId = (...ps: PayoutSnapshot[]) => new Map(ps.map((p) => [p.endToEndId, p]));

describe('a camt.054 notification', () => {
  const file = read('camt.054.001.08-debits-and-return.xml');
  const payouts = byId(
    payout('po-01JDZ6R0A1B2C3D4E5F6G7H8J9', 'in_transit', 25000n),
    payout('po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4', 'pending', 10050n),
    payout('po-01JDZ6T7D8E9F0G1H2J3K4M5N6', 'paid', 7525n),
    payout('po-01JDZ5M0N1P2Q3R4S5T6V7W8X9', 'paid', 4000n),
    payout('po-01JDZ6V9W0X1Y2Z3A4B5C6D7E8', 'in_transit', 1200n),
  );

  it('pays, sends-then-pays a payout whose file reached the bank unrecorded, leaves one already paid, returns one', () => {
    const plan = planBankFile(file, payouts);
    expect(plan.entries.map((e) => [e.payoutId, e.outcome, e.steps, e.failureCode])).toEqual([
      ['po_01JDZ6R0A1B2C3D4E5F6G7H8J9', 'paid', ['pay'], null],
      ['po_01JDZ6S5T6V7W8X9Y0Z1A2B3C4', 'paid', ['send', 'pay'], null],
      ['po_01JDZ6T7D8E9F0G1H2J3K4M5N6', 'paid', [], null],
      ['po_01JDZ5M0N1P2Q3R4S5T6V7W8X9', 'returned', ['return'], 'account_closed'],
      ['po_01JDZ6V9W0X1Y2Z3A4B5C6D7E8', 'no_change', [], null],
    ]);
    expect(plan.unmatched).toEqual([
      { endToEndId: 'INV-2026-1188', amount: 500000n, currency: 'EUR', reason: 'unknown_end_to_end_id' },
      { endToEndId: null, amount: 250n, currency: 'EUR', reason: 'no_end_to_end_id' },
    ]);
  });

  it('an amount or currency that disagrees with the payout changes nothing and is listed', () => {
    const wrong = byId(
      payout('po-01JDZ6R0A1B2C3D4E5F6G7H8J9', 'in_transit', 25001n),
      payout('po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4', 'in_transit', 10050n, 'USD'),
    );
    const plan = planBankFile(file, wrong);
    expect(plan.entries).toEqual([]);
    expect(plan.unmatched.slice(0, 2)).toEqual([
      { endToEndId: 'po-01JDZ6R0A1B2C3D4E5F6G7H8J9', amount: 25000n, currency: 'EUR', reason: 'amount_mismatch' },
      { endToEndId: 'po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4', amount: 10050n, currency: 'EUR', reason: 'amount_mismatch' },
    ]);
  });

  it("another account's EndToEndId matches nothing: the caller hands in only the sending account's payouts", () => {
    const plan = planBankFile(file, new Map());
    expect(plan.entries).toEqual([]);
    expect(plan.unmatched.filter((u) => u.reason === 'unknown_end_to_end_id')).toHaveLength(6);
  });

  it('taken again (a notification, then the statement), it takes no step twice', () => {
    const first = planBankFile(file, payouts);
    const after = byId(
      ...[...payouts.values()].map((p) => {
        const e = first.entries.find((x) => x.payoutId === p.id);
        return e && e.outcome !== 'no_change' ? { ...p, status: e.outcome } : p;
      }),
    );
    expect(planBankFile(file, after).entries.flatMap((e) => e.steps)).toEqual([]);
  });
});

describe('conflicts and orders', () => {
  const entry = (endToEndId: string, outcome: 'paid' | 'failed' | 'returned', amount = 100n) => ({
    endToEndId,
    amount,
    currency: 'EUR',
    outcome,
    reasonCode: null,
    failureCode: outcome === 'paid' ? null : ('could_not_process' as const),
  });
  const file = (...entries: BankFile['entries']): BankFile => statementOf(entries);

  it('a rejection of a payout already paid, or a payment of one that failed, is a status conflict', () => {
    expect(planBankFile(file(entry('po-1', 'failed')), byId(payout('po-1', 'paid', 100n))).unmatched[0]?.reason).toBe('status_conflict');
    expect(planBankFile(file(entry('po-1', 'paid')), byId(payout('po-1', 'failed', 100n))).unmatched[0]?.reason).toBe('status_conflict');
    expect(planBankFile(file(entry('po-1', 'returned')), byId(payout('po-1', 'canceled', 100n))).unmatched[0]?.reason).toBe(
      'status_conflict',
    );
  });

  it('paid and returned in one statement: pay, then return; a return seen first pays on the way; a late payment of a returned payout is shown', () => {
    const both = planBankFile(file(entry('po-1', 'paid'), entry('po-1', 'returned')), byId(payout('po-1', 'in_transit', 100n)));
    expect(both.entries.map((e) => e.steps)).toEqual([['pay'], ['return']]);
    expect(planBankFile(file(entry('po-1', 'returned')), byId(payout('po-1', 'in_transit', 100n))).entries[0]?.steps).toEqual([
      'pay',
      'return',
    ]);
    expect(planBankFile(file(entry('po-1', 'paid')), byId(payout('po-1', 'returned', 100n))).entries[0]?.steps).toEqual([]);
    // The same statement again: the late payment leaves the payout returned, so the return is not taken twice.
    const again = planBankFile(file(entry('po-1', 'paid'), entry('po-1', 'returned')), byId(payout('po-1', 'returned', 100n)));
    expect(again.entries.map((e) => e.steps)).toEqual([[], []]);
  });
});

describe('a pain.002', () => {
  it('fails each rejected payout with its mapped code, and a rejection of an unknown one is listed', () => {
    const plan = planBankFile(
      read('pain.002.001.10-rejections.xml'),
      byId(
        payout('po-01JDZ6R0A1B2C3D4E5F6G7H8J9', 'in_transit', 25000n),
        payout('po-01JDZ6R1K2M3N4P5Q6R7S8T9V0', 'in_transit', 100005n),
        payout('po-01JDZ6R2W3X4Y5Z6A7B8C9D0E1', 'pending', 10000n),
      ),
    );
    expect(plan.entries.map((e) => [e.payoutId, e.steps, e.failureCode])).toEqual([
      ['po_01JDZ6R0A1B2C3D4E5F6G7H8J9', [], null],
      ['po_01JDZ6R1K2M3N4P5Q6R7S8T9V0', ['fail'], 'account_closed'],
      ['po_01JDZ6R2W3X4Y5Z6A7B8C9D0E1', ['fail'], 'invalid_account_number'],
    ]);
    expect(plan.unmatched).toEqual([
      { endToEndId: 'po-01JDZ6R3F4G5H6J7K8M9N0P1Q2', amount: 6100n, currency: 'EUR', reason: 'unknown_end_to_end_id' },
    ]);
  });

  it('rejecting a whole file fails every payout it carried, with the file reason mapped', () => {
    const carried = [
      payout('po-A', 'in_transit', 100n, 'EUR', 'MSG-01JDZ7A0B1C2D3E4F5G6H7J8K9'),
      payout('po-B', 'in_transit', 200n, 'EUR', 'MSG-01JDZ7A0B1C2D3E4F5G6H7J8K9'),
    ];
    const plan = planBankFile(read('pain.002.001.10-file-rejected.xml'), new Map(), carried);
    expect(plan.entries.map((e) => [e.payoutId, e.steps, e.failureCode])).toEqual([
      ['po_A', ['fail'], 'could_not_process'],
      ['po_B', ['fail'], 'could_not_process'],
    ]);
    expect(plan.unmatched).toEqual([]);
  });
});

describe('what a file may change (docs/bank.md)', () => {
  it('a pain.002 changes only payouts of the file its OrgnlMsgId names: one of another file is listed not_in_file', () => {
    const plan = planBankFile(
      read('pain.002.001.10-rejections.xml'),
      byId(
        payout('po-01JDZ6R0A1B2C3D4E5F6G7H8J9', 'in_transit', 25000n),
        payout('po-01JDZ6R1K2M3N4P5Q6R7S8T9V0', 'in_transit', 100005n, 'EUR', 'B-ANOTHERFILE'),
        payout('po-01JDZ6R2W3X4Y5Z6A7B8C9D0E1', 'pending', 10000n, 'EUR', null),
      ),
    );
    expect(plan.entries.map((e) => [e.payoutId, e.steps])).toEqual([['po_01JDZ6R0A1B2C3D4E5F6G7H8J9', []]]);
    expect(plan.unmatched.map((u) => [u.endToEndId, u.reason])).toEqual([
      ['po-01JDZ6R1K2M3N4P5Q6R7S8T9V0', 'not_in_file'],
      ['po-01JDZ6R2W3X4Y5Z6A7B8C9D0E1', 'not_in_file'],
      ['po-01JDZ6R3F4G5H6J7K8M9N0P1Q2', 'unknown_end_to_end_id'],
    ]);
  });

  it('a booked debit or a return of a payout in no file changes nothing and is listed not_in_file', () => {
    const file = read('camt.054.001.08-debits-and-return.xml');
    const plan = planBankFile(
      file,
      byId(
        payout('po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4', 'pending', 10050n, 'EUR', null),
        payout('po-01JDZ5M0N1P2Q3R4S5T6V7W8X9', 'paid', 4000n, 'EUR', null),
      ),
    );
    expect(plan.entries).toEqual([]);
    expect(plan.unmatched.filter((u) => u.reason === 'not_in_file').map((u) => u.endToEndId)).toEqual([
      'po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4',
      'po-01JDZ5M0N1P2Q3R4S5T6V7W8X9',
    ]);
  });
});
