/**
 * The ledger's repository (docs/money.md): one immutable entry per movement, its postings, and the
 * balances kept beside them (all written by the one writer, ./transfers.repository.ts); the
 * queries `ledger:verify` checks them with.
 */
import type { Knex } from 'knex';
import { type EntryType, type LedgerAccount, LEDGER_ACCOUNTS } from './ledger.rules';
import {
  type MilestoneMoneyRecord,
  type PaymentMoneyRecord,
  milestoneMoneyViolations,
  paymentMoneyViolations,
} from './moneyInvariants.rules';
import type { Scope } from '../tenants/tenancy.rules';
import type { MilestoneState } from '../payments/paymentTypes.rules';
import { withBigintMoney } from './moneyFields.rules';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from '../platform/database/pagination';

/** A row of ledger_entries. */
export interface LedgerEntryRow {
  id: string;
  payment_id: string | null;
  milestone_id: string | null;
  recipient_id: string | null;
  version: number;
  account_id: string;
  livemode: boolean;
  currency: string;
  exponent: number;
  type: EntryType;
  created_at: Date;
}

interface LedgerEntryRecord extends LedgerEntryRow {
  postings: { ledger_account: LedgerAccount; address: string; amount_minor: bigint }[];
}

/**
 * The caller's balances, per currency and exponent and ledger account, as kept: the GROUP BY of its
 * accounts' rows (the view `ledger_balances`, docs/money.md), no scan of postings.
 */
export async function findBalances(db: Knex, scope: Scope) {
  const rows = (await db('ledger_balances')
    .where({ account_id: scope.accountId, livemode: scope.livemode })
    .orderBy(['currency', 'exponent', 'ledger_account'])) as {
    currency: string;
    exponent: number;
    ledger_account: LedgerAccount;
    balance_minor: string;
  }[];
  return rows.map((r) => ({ ...r, balance_minor: BigInt(r.balance_minor) }));
}

async function withPostings(db: Knex, entries: LedgerEntryRow[]): Promise<LedgerEntryRecord[]> {
  if (entries.length === 0) return [];
  const postings = (await db('ledger_postings').whereIn(
    'entry_id',
    entries.map((e) => e.id),
  )) as { entry_id: string; ledger_account: LedgerAccount; address: string; amount_minor: string }[];
  const order = (a: LedgerAccount) => LEDGER_ACCOUNTS.indexOf(a);
  return entries.map((e) => ({
    ...e,
    postings: postings
      .filter((p) => p.entry_id === e.id)
      .sort((a, b) => order(a.ledger_account) - order(b.ledger_account))
      .map((p) => ({ ledger_account: p.ledger_account, address: p.address, amount_minor: BigInt(p.amount_minor) })),
  }));
}

/** A payment's entries, oldest first (the caller has checked the payment is theirs). */
export async function paymentLedger(db: Knex, paymentId: string): Promise<LedgerEntryRecord[]> {
  return withPostings(db, await db('ledger_entries').where({ payment_id: paymentId }).orderBy('version'));
}

export interface LedgerEntryFilter extends PageRequest, CreatedRange {
  paymentId?: string;
  type?: EntryType;
}

export async function listLedgerEntries(db: Knex, scope: Scope, filter: LedgerEntryFilter) {
  const page = await pageOf<LedgerEntryRow>(
    'ledger_entries',
    () => db('ledger_entries').where({ account_id: scope.accountId, livemode: scope.livemode }),
    (q) => {
      if (filter.paymentId) q.andWhere('payment_id', filter.paymentId);
      if (filter.type) q.andWhere('type', filter.type);
      return withinCreated(q, filter);
    },
    filter,
  );
  return 'cursorNotFound' in page ? page : { rows: await withPostings(db, page.rows), hasMore: page.hasMore };
}

/** One breach of a ledger invariant, as `ledger:verify` reports it. */
export interface LedgerViolation {
  check: 'entry_balanced' | 'balance_equals_postings' | 'payment_amounts' | 'milestone_amounts' | 'payout_entries' | 'workflow_state';
  paymentId?: string;
  /** A payout's breach (src/ledger/payoutCheck.repository.ts) names the payout. */
  payoutId?: string;
  entryId?: string;
  message: string;
}

/** Which payments the per-payment checks cover: the `limit` after `after` (all from the first when null), in id order. */
export interface PaymentPage {
  after: string | null;
  limit: number;
}

/** A payment's amounts in the read model beside its postings' sums (open payments are also compared with their workflow). */
export interface PaymentMoneyRow extends PaymentMoneyRecord {
  id: string;
  version: number;
  milestones: MilestoneState[];
}

/**
 * The invariants PostgreSQL can check by itself (docs/money.md): every entry balances, every
 * kept balance (one table) equals its postings, every payment's amounts equal its postings. `accountId` narrows the
 * check to one account (tests share a database); without it, everything. `page` narrows the
 * per-payment checks to the `limit` payments after `after` in id order (the ledger-wide ones stay whole).
 */
export async function findLedgerViolations(
  db: Knex,
  accountId?: string,
  page?: PaymentPage,
): Promise<{ violations: LedgerViolation[]; payments: PaymentMoneyRow[] }> {
  const violations: LedgerViolation[] = [];
  const onlyEntries = accountId ? 'where e.account_id = ?' : '';
  const args = accountId ? [accountId] : [];
  const unbalanced = await db.raw<{ rows: { id: string; payment_id: string; total: string; postings: string }[] }>(
    `select e.id, e.payment_id, coalesce(sum(p.amount_minor), 0) as total, count(p.entry_id) as postings
     from ledger_entries e left join ledger_postings p on p.entry_id = e.id ${onlyEntries}
     group by e.id, e.payment_id having count(p.entry_id) < 2 or coalesce(sum(p.amount_minor), 0) <> 0`,
    args,
  );
  for (const r of unbalanced.rows) {
    violations.push({
      check: 'entry_balanced',
      paymentId: r.payment_id,
      entryId: r.id,
      message: `entry ${r.id} has ${r.postings} postings summing to ${r.total}, not 0`,
    });
  }
  // Every kept balance (one table, a row per address: docs/money.md) equals the sum of its postings.
  const drifted = await db.raw<{ rows: Record<string, string | boolean | null>[] }>(
    `with sums as (
       select p.address, e.currency, e.exponent, e.account_id, e.livemode, p.ledger_account, sum(p.amount_minor) as total
       from ledger_postings p join ledger_entries e on e.id = p.entry_id ${onlyEntries}
       group by p.address, e.currency, e.exponent, e.account_id, e.livemode, p.ledger_account),
     kept as (select * from ledger_account_balances ${accountId ? 'where account_id = ?' : ''})
     select address, currency, account_id, livemode, ledger_account, k.balance_minor, s.total
     from kept k full outer join sums s using (address, currency, exponent, account_id, livemode, ledger_account)
     where coalesce(k.balance_minor, 0) <> coalesce(s.total, 0)`,
    [...args, ...args],
  );
  for (const r of drifted.rows) {
    const address = String(r.address);
    violations.push({
      check: 'balance_equals_postings',
      ...(address.startsWith('escrow:') ? { paymentId: address.slice('escrow:'.length) } : {}),
      message: `balance ${String(r.ledger_account)} ${address} of account ${String(r.account_id)} (${r.livemode ? 'live' : 'test'}, ${String(r.currency)}) is ${String(r.balance_minor ?? 0)}; its postings sum to ${String(r.total ?? 0)}`,
    });
  }
  const sum = (accounts: string) => `coalesce(sum(case when p.ledger_account in (${accounts}) then p.amount_minor else 0 end), 0)`;
  // Where a payment's money came from: the deposit the platform reported, or the bank's credit (docs/bank.md).
  const deposits = `'payer_deposits', 'custody_bank', 'unapplied_credit'`;
  // What a release credited: recipient_payable, or a recipient's pending or available, and the fee.
  const released = `'recipient_payable', 'recipient_pending', 'recipient_available', 'platform_fees'`;
  // The payments checked, and only their postings summed.
  const pageWhere = [accountId ? 'account_id = ?' : 'true', page?.after ? 'id > ?' : 'true'].join(' and ');
  const pageArgs = [...args, ...(page?.after ? [page.after] : [])];
  const checked = `checked as (select id from payments where ${pageWhere} order by id ${page ? `limit ${Math.trunc(page.limit)}` : ''})`;
  const ofChecked = 'join checked c on c.id = e.payment_id';
  const rows = await db.raw<{ rows: (Record<string, string | number> & { milestones: MilestoneState[] })[] }>(
    `with ${checked}, per as (
       select e.payment_id, -${sum(deposits)} as l_deposited, ${sum(`'custody'`)} as l_custody,
              ${sum(`'payer_refunds'`)} as l_refunded, ${sum(released)} as l_released,
              ${sum(`'platform_fees'`)} as l_fees
       from ledger_postings p join ledger_entries e on e.id = p.entry_id ${ofChecked} group by e.payment_id)
     select py.id, py.status, py.version, py.amount_minor, py.platform_fee_minor, py.held_minor, py.released_minor,
            py.refunded_minor, py.fee_collected_minor, py.amount_received_minor, py.milestones, per.l_deposited, per.l_custody, per.l_refunded, per.l_released, per.l_fees
     from payments py join checked c on c.id = py.id left join per on per.payment_id = py.id
     order by py.id`,
    pageArgs,
  );
  const big = (v: string | number | undefined | null) => BigInt(v ?? 0);
  const payments = rows.rows.map((r): PaymentMoneyRow => ({
    id: String(r.id),
    version: Number(r.version),
    milestones: withBigintMoney(r.milestones),
    status: String(r.status),
    amount: big(r.amount_minor),
    platformFee: big(r.platform_fee_minor),
    held: big(r.held_minor),
    released: big(r.released_minor),
    refunded: big(r.refunded_minor),
    feeCollected: big(r.fee_collected_minor),
    received: big(r.amount_received_minor),
    ledger: {
      deposited: big(r.l_deposited),
      custody: big(r.l_custody),
      refunded: big(r.l_refunded),
      released: big(r.l_released),
      fees: big(r.l_fees),
    },
  }));
  const milestoneSums = await db.raw<{ rows: Record<string, string>[] }>(
    `with ${checked} select e.payment_id, coalesce(e.milestone_id, 'ms_' || substr(e.payment_id, 5)) as milestone_id,
            -${sum(deposits)} as l_deposited, ${sum(`'custody'`)} as l_custody, ${sum(`'payer_refunds'`)} as l_refunded,
            ${sum(released)} as l_released, ${sum(`'platform_fees'`)} as l_fees
     from ledger_postings p join ledger_entries e on e.id = p.entry_id ${ofChecked} group by 1, 2`,
    pageArgs,
  );
  const ledgerOf = new Map(milestoneSums.rows.map((r) => [`${r.payment_id}|${r.milestone_id}`, r]));
  for (const p of payments) {
    for (const message of paymentMoneyViolations(p)) violations.push({ check: 'payment_amounts', paymentId: p.id, message });
    const milestones = p.milestones.map((m): MilestoneMoneyRecord => {
      const l = ledgerOf.get(`${p.id}|${m.id}`);
      return {
        id: m.id,
        status: m.status,
        amount: m.amountMinor,
        held: m.heldMinor,
        released: m.releasedMinor,
        refunded: m.refundedMinor,
        feeCollected: m.feeCollectedMinor,
        ledger: {
          deposited: big(l?.l_deposited),
          custody: big(l?.l_custody),
          refunded: big(l?.l_refunded),
          released: big(l?.l_released),
          fees: big(l?.l_fees),
        },
      };
    });
    for (const message of milestoneMoneyViolations(p, milestones))
      violations.push({ check: 'milestone_amounts', paymentId: p.id, message });
  }
  return { violations, payments };
}
