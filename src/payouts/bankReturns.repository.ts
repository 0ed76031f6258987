/**
 * Returns (docs/bank.md, "Returns"): money sent back to the debtor account a credit's entry named,
 * one `bank_returns` row each, written in the next pain.001 with its own EndToEndId (`rt-…`) and
 * answered by the bank like a payout. The debtor's name and account are read from the credit's row at
 * the moment the file is built, never copied (nor put in Temporal): erased with the payment, they are
 * erased for the return too. The ledger moves only when the bank books the debit: until then the money
 * is still at the bank, in the credit's own account (`bank_credit:bc_… → bank:custody`,
 * `bank_return_paid`; docs/money.md). Written by the workers only (src/platform/database/roles.ts).
 */
import { type OwedDeliveries, recordBankCreditEvent } from './bankCreditEvents.repository';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { isValidIBAN } from 'ibantools';
import { BANK_CUSTODY, bankCreditAddress } from '../ledger/ledger.rules';
import { type BankBooking, postTransfers } from '../ledger/transfers.repository';
import { OPERATOR_ACCOUNT } from './bankCredit.rules';
import { type BankCreditRow, findCredit, moveCredit } from './bankCredits.repository';
import { SEPA_NAME_MAX, isSepaText } from './sepaText.rules';

export type BankReturnStatus = 'pending' | 'in_file' | 'paid' | 'failed';

export interface BankReturnRow {
  id: string;
  kind: 'credit_return' | 'refund';
  account_id: string | null;
  livemode: boolean;
  credit_id: string;
  payment_id: string | null;
  amount_minor: bigint;
  currency: string;
  exponent: number;
  end_to_end_id: string;
  status: BankReturnStatus;
  message_id: string | null;
  failure_code: string | null;
}

/** A return as the file needs it: with its credit's debtor, read at the moment the file is built. */
export interface FileReturn extends BankReturnRow {
  debtor_name: string | null;
  debtor_iban: string | null;
}

const COLUMNS = [
  'id',
  'kind',
  'account_id',
  'livemode',
  'credit_id',
  'payment_id',
  'amount_minor',
  'currency',
  'exponent',
  'end_to_end_id',
  'status',
  'message_id',
  'failure_code',
];

const fromRow = (r: Record<string, unknown>): BankReturnRow => ({
  ...(r as unknown as BankReturnRow),
  amount_minor: BigInt(r.amount_minor as string),
});
const fileReturnOf = (r: Record<string, unknown>): FileReturn => ({
  ...(r as unknown as FileReturn),
  amount_minor: BigInt(r.amount_minor as string),
});

/** A return's EndToEndId: its id's ULID after `rt-`, within the SEPA set (the id's `_` is outside it). */
export const returnEndToEndId = (returnId: string) => `rt-${returnId.slice(returnId.indexOf('_') + 1)}`.slice(0, 35);

/** Whether a debtor can be paid back by a file the bank takes: an IBAN, and a name of the SEPA set (docs/bank.md, "What the bank receives"). */
export const payableDebtor = (d: { debtor_name: string | null; debtor_iban: string | null }) =>
  d.debtor_iban !== null &&
  isValidIBAN(d.debtor_iban) &&
  d.debtor_name !== null &&
  d.debtor_name.length > 0 &&
  d.debtor_name.length <= SEPA_NAME_MAX &&
  isSepaText(d.debtor_name);

export type CreditReturnOutcome =
  | { outcome: 'returned'; credit: BankCreditRow; ret: BankReturnRow; owed: OwedDeliveries }
  | { outcome: 'not_found' }
  | { outcome: 'not_unapplied'; status: string }
  | { outcome: 'not_returnable'; why: string };

/** The ledger's owner of a return's entry: the credit's tenant, or the operator. */
const ledgerOwner = (r: BankReturnRow) => ({
  accountId: r.account_id ?? OPERATOR_ACCOUNT,
  livemode: r.livemode,
  currency: r.currency,
  exponent: r.exponent,
});

/** The bank booked the return's debit: its money leaves the custody account (`bank_return_paid`), once by the return's id. */
async function postReturnPaid(tx: Knex.Transaction, r: BankReturnRow, booking: BankBooking, at: Date): Promise<void> {
  await postTransfers(tx, [
    {
      key: `${r.id}:bank_return_paid`,
      code: 'bank_return_paid',
      paymentId: null,
      milestoneId: null,
      recipientId: null,
      version: 1,
      ...ledgerOwner(r),
      at,
      // A credit's return leaves the credit's account; a refund paid back leaves what the account owes its payers.
      transfers: [
        { debit: r.kind === 'refund' ? 'payer_refunds' : bankCreditAddress(r.credit_id), credit: BANK_CUSTODY, amount: r.amount_minor },
      ],
      bank: booking,
    },
  ]);
}

/**
 * Return an unapplied credit of `owner` (an account, or the operator: null): the credit `returned` and
 * its return `pending` for the next file, in one transaction; in test mode the simulated bank pays it at
 * once (docs/bank.md, "Returns"). Idempotent by `returnId`: a retried activity answers what the first did.
 */
export async function requestCreditReturn(
  db: Knex,
  input: { returnId: string; creditId: string; accountId: string | null; livemode: boolean },
): Promise<CreditReturnOutcome> {
  return db.transaction(async (tx) => {
    const done = await tx('bank_returns').where({ id: input.returnId }).first(COLUMNS);
    if (done) {
      // A retried activity: the event was recorded with the return; its deliveries not attempted yet are owed again.
      const credit = (await findCredit(tx, input.creditId))!;
      return { outcome: 'returned', credit, ret: fromRow(done), owed: await recordBankCreditEvent(tx, credit, 'bank_credit.returned') };
    }
    const row = await tx('bank_credits')
      .where({ id: input.creditId })
      .forUpdate()
      .first('account_id', 'livemode', 'status', 'debtor_name', 'debtor_iban');
    if (!row || row.account_id !== input.accountId || row.livemode !== input.livemode) return { outcome: 'not_found' };
    if (row.status !== 'unapplied') return { outcome: 'not_unapplied', status: row.status };
    if (input.livemode && !payableDebtor(row)) {
      return { outcome: 'not_returnable', why: 'the entry named no debtor account (or a name the bank would refuse) to send it back to' };
    }
    const credit = (await moveCredit(tx, input.creditId, 'unapplied', 'returned'))!;
    // Its account's `bank_credit.returned`, with the return, in one transaction (docs/bank.md, "Events").
    const owed = await recordBankCreditEvent(tx, credit, 'bank_credit.returned');
    const [inserted] = await tx('bank_returns')
      .insert({
        id: input.returnId,
        kind: 'credit_return',
        account_id: credit.account_id,
        livemode: credit.livemode,
        credit_id: credit.id,
        payment_id: credit.payment_id,
        amount_minor: credit.amount_minor.toString(),
        currency: credit.currency,
        exponent: credit.exponent,
        end_to_end_id: returnEndToEndId(input.returnId),
        // Test mode: the simulated bank pays it at once; nothing is written to the outbox.
        status: input.livemode ? 'pending' : 'paid',
      })
      .returning(COLUMNS);
    const ret = fromRow(inserted);
    if (!input.livemode) {
      const today = new Date().toISOString().slice(0, 10);
      await postReturnPaid(tx, ret, { bookedOn: today, reference: ret.end_to_end_id, entryRef: null }, new Date());
    }
    return { outcome: 'returned', credit, ret, owed };
  });
}

/** Live returns waiting for a file and in none yet, with their debtors, oldest first. */
export async function unfiledReturns(db: Knex, limit: number): Promise<FileReturn[]> {
  const rows = await db('bank_returns as r')
    .join('bank_credits as c', 'c.id', 'r.credit_id')
    .where({ 'r.status': 'pending', 'r.livemode': true })
    .whereNull('r.message_id')
    .orderBy('r.id')
    .limit(limit)
    .select([...COLUMNS.map((c) => `r.${c}`), 'c.debtor_name', 'c.debtor_iban']);
  return rows.map((r) => fileReturnOf(r));
}

/** Record returns under the file they go in (still `pending`): a retried batch writes them in the same file. */
export async function assignReturns(db: Knex, messageId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db('bank_returns')
    .whereIn('id', ids)
    .where({ status: 'pending' })
    .whereNull('message_id')
    .update({ message_id: messageId, updated_at: db.fn.now() });
}

/** The returns recorded under a file, with their debtors (read now: erased since, they are null). */
export async function fileReturns(db: Knex, messageId: string): Promise<FileReturn[]> {
  const rows = await db('bank_returns as r')
    .join('bank_credits as c', 'c.id', 'r.credit_id')
    .where({ 'r.message_id': messageId })
    .whereIn('r.status', ['pending', 'in_file'])
    .orderBy('r.id')
    .select([...COLUMNS.map((c) => `r.${c}`), 'c.debtor_name', 'c.debtor_iban']);
  return rows.map((r) => fileReturnOf(r));
}

/** The file is durably written: its returns are in it. */
export async function markReturnsInFile(db: Knex, messageId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db('bank_returns')
    .whereIn('id', ids)
    .where({ message_id: messageId, status: 'pending' })
    .update({ status: 'in_file', updated_at: db.fn.now() });
}

/** The returns a bank file names (by EndToEndId), and those of the pain.001 a whole-file rejection names. */
export async function returnsForBankFile(db: Knex, endToEndIds: readonly string[], rejectedFile: string | null): Promise<BankReturnRow[]> {
  const rows = await db('bank_returns')
    .where((q) => {
      q.whereIn('end_to_end_id', endToEndIds);
      if (rejectedFile !== null) q.orWhere({ message_id: rejectedFile });
    })
    .select(COLUMNS);
  return rows.map((r) => fromRow(r));
}

/**
 * A return the bank refused (or could not make: its debtor erased before its file): `failed`, and a
 * credit's return leaves the credit unapplied again; its money never left `bank_credit:bc_…`.
 * False when it was not open any more.
 */
export async function failReturn(db: Knex, r: BankReturnRow, failureCode: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const moved = await tx('bank_returns')
      .where({ id: r.id })
      .whereIn('status', ['pending', 'in_file'])
      .update({ status: 'failed', failure_code: failureCode, updated_at: tx.fn.now() });
    if (moved === 0) return false;
    if (r.kind === 'credit_return') await moveCredit(tx, r.credit_id, 'returned', 'unapplied');
    return true;
  });
}

/** The bank booked the return's debit: `paid`, its money out of the custody account. False when it was not in a file, or paid before. */
export async function payReturn(db: Knex, r: BankReturnRow, booking: BankBooking): Promise<boolean> {
  return db.transaction(async (tx) => {
    const moved = await tx('bank_returns')
      .where({ id: r.id })
      .whereIn('status', ['pending', 'in_file'])
      .whereNotNull('message_id')
      .update({ status: 'paid', updated_at: tx.fn.now() });
    if (moved === 0) return false;
    await postReturnPaid(tx, r, booking, new Date());
    return true;
  });
}

/**
 * An operator's unapplied credit handed to the account of the payment it is to be applied to
 * (`npm run bank-files -- apply ID PAYMENT`; docs/bank.md, "Unapplied credits"): its money leaves the
 * operator's book for the account's, each side balanced (`bank_credit_assigned`: the operator's
 * `bank_credit:bc_… → bank:custody`, the account's `bank:custody → bank_credit:bc_…`), and the credit is
 * the account's from then on, to be applied as its own. Once: false when it is no unapplied credit of the operator's.
 */
export async function assignOperatorCredit(db: Knex, creditId: string, owner: { accountId: string; paymentId: string }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const credit = await tx('bank_credits').where({ id: creditId, status: 'unapplied' }).whereNull('account_id').forUpdate().first('id');
    if (!credit) return false;
    const row = (await findCredit(tx, creditId))!;
    const entry = (accountId: string, side: string, debit: string, credit: string) => ({
      key: `${row.id}:bank_credit_assigned:${side}`,
      code: 'bank_credit_assigned' as const,
      paymentId: null,
      milestoneId: null,
      recipientId: null,
      version: row.version,
      accountId,
      livemode: row.livemode,
      currency: row.currency,
      exponent: row.exponent,
      at: new Date(),
      transfers: [{ debit, credit, amount: row.amount_minor }],
      bank: { bookedOn: row.booked_on, reference: row.reference, entryRef: row.bank_entry_ref },
    });
    await postTransfers(tx, [
      entry(OPERATOR_ACCOUNT, 'out', bankCreditAddress(row.id), BANK_CUSTODY),
      entry(owner.accountId, 'in', BANK_CUSTODY, bankCreditAddress(row.id)),
    ]);
    await tx('bank_credits')
      .where({ id: row.id })
      .update({ account_id: owner.accountId, payment_id: owner.paymentId, version: tx.raw('version + 1'), updated_at: tx.fn.now() });
    return true;
  });
}

/**
 * Refunds of live payments funded by transfer not yet paid back (docs/bank.md, "Returns"): each refund's
 * ledger entry (`refund`, `split`: what it moved to `payer_refunds`) becomes returns to the debtors of
 * the payment's credits, taken newest credit first, each credit paying back at most what it brought less
 * what was paid back from it already. Once per entry (a unique index): a retried batch makes none twice.
 * An `api` payment's refund stays owed to the platform, which refunds through its own processor.
 */
export async function makeRefundReturns(db: Knex): Promise<number> {
  interface Refund {
    id: string;
    payment_id: string;
    account_id: string;
    currency: string;
    exponent: number;
    amount_minor: string;
  }
  const refunds: Refund[] = await db('ledger_entries as e')
    .join('ledger_postings as p', function () {
      this.on('p.entry_id', '=', 'e.id').andOnVal('p.address', '=', 'payer_refunds');
    })
    .join('payments as pay', 'pay.id', 'e.payment_id')
    .where({ 'pay.funding': 'bank_transfer', 'e.livemode': true })
    .whereIn('e.type', ['refund', 'split'])
    .where('p.amount_minor', '>', 0)
    .whereNotExists(db('bank_returns as r').whereRaw('r.refund_entry_id = e.id'))
    .orderBy('e.created_at')
    .select('e.id', 'e.payment_id', 'e.account_id', 'e.currency', 'e.exponent', 'p.amount_minor');
  let made = 0;
  for (const refund of refunds) {
    await db.transaction(async (tx) => {
      const credits: { id: string; amount_minor: string }[] = await tx('bank_credits')
        .where({ payment_id: refund.payment_id, status: 'applied', currency: refund.currency })
        .orderBy('id', 'desc')
        .forUpdate()
        .select('id', 'amount_minor');
      let owed = BigInt(refund.amount_minor);
      for (const c of credits) {
        if (owed === 0n) break;
        const sums: { back: string | null }[] = await tx('bank_returns')
          .where({ credit_id: c.id, kind: 'refund' })
          .whereNot({ status: 'failed' })
          .sum({ back: 'amount_minor' });
        const back = sums[0]?.back ?? null;
        const room = BigInt(c.amount_minor) - BigInt(back ?? 0);
        const amount = room < owed ? room : owed;
        if (amount <= 0n) continue;
        const id = `rtn_${ulid()}`;
        const inserted = await tx('bank_returns')
          .insert({
            id,
            kind: 'refund',
            account_id: refund.account_id,
            livemode: true,
            credit_id: c.id,
            payment_id: refund.payment_id,
            amount_minor: amount.toString(),
            currency: refund.currency,
            exponent: refund.exponent,
            end_to_end_id: returnEndToEndId(id),
            status: 'pending',
            refund_entry_id: refund.id,
          })
          .onConflict(db.raw('(refund_entry_id, credit_id) where refund_entry_id is not null'))
          .ignore()
          .returning('id');
        if (inserted.length > 0) made += 1;
        owed -= amount;
      }
    });
  }
  return made;
}
