/**
 * The payout repository (docs/payouts.md): a payout row is the read model of its workflow (workflow
 * id = payout id), and every step that moves its money writes the row, its ledger entry and the
 * deliveries its `payout.*` event owes in one transaction, so none is ever without the others.
 */
import type { Knex } from 'knex';
import { recipientAddress } from '../ledger/ledger.rules';
import {
  type PayoutAction,
  type PayoutEntryType,
  type PayoutEvent,
  type PayoutFailureCode,
  type PayoutMovement,
  type PayoutStatus,
  PAYOUT_CREATION,
  PAYOUT_TRANSITIONS,
  checkPayoutTransition,
  payoutEntryKey,
  payoutPostings,
} from './payout.rules';
import { marksBankAccountErrored } from './bankAccounts.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { type PayoutFields, payoutEnvelope } from './payout.view';
import { settleDefault } from './bankAccounts.repository';
import { recordEvent } from '../webhooks/deliveryPlan.repository';
import { postEntry } from '../ledger/ledgerAccounts.repository';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from '../platform/database/pagination';

export interface PayoutRow extends PayoutFields {
  account_id: string;
  message_id: string | null;
  clock_offset_seconds: number;
  version: number;
  updated_at: Date;
}

/** A payout row as `pg` hands it over: its bigint `amount` as text. */
export type StoredPayout<R extends { amount: bigint }> = Omit<R, 'amount'> & { amount: string | bigint };

/**
 * The one reader of a payout row (with any joined columns, or some columns only): its amount as
 * bigint, so that no use of a row converts it again (docs/money.md: minor units are bigint).
 */
export function payoutRow<R extends { amount: bigint }>(stored: StoredPayout<R>): R {
  return { ...stored, amount: BigInt(stored.amount) } as R;
}

/** Rows as knex answers them (it types none), each through `payoutRow`. */
const readAll = <R extends PayoutRow = PayoutRow>(stored: StoredPayout<R>[]): R[] => stored.map((r) => payoutRow<R>(r));
const readOne = (stored: StoredPayout<PayoutRow> | undefined): PayoutRow | undefined =>
  stored === undefined ? undefined : payoutRow(stored);

const scoped = (db: Knex | Knex.Transaction, scope: Scope) =>
  db('payouts').where({ account_id: scope.accountId, livemode: scope.livemode });

export async function findPayout(db: Knex, scope: Scope, id: string): Promise<PayoutRow | undefined> {
  return readOne(await scoped(db, scope).andWhere({ id }).first());
}

/** A payout by id alone: the workflow's activities, which hold no caller's scope. */
export async function payoutById(db: Knex, id: string): Promise<PayoutRow | undefined> {
  return readOne(await db('payouts').where({ id }).first());
}

export interface PayoutFilter extends PageRequest, CreatedRange {
  recipient?: string | undefined;
  status?: PayoutStatus | undefined;
}

export async function listPayouts(db: Knex, scope: Scope, filter: PayoutFilter) {
  const page = await pageOf<PayoutRow>(
    'payouts',
    () => scoped(db, scope),
    (q) => {
      withinCreated(q, filter);
      if (filter.recipient !== undefined) q.andWhere('recipient_id', filter.recipient);
      if (filter.status !== undefined) q.andWhere('status', filter.status);
      return q;
    },
    filter,
  );
  return 'rows' in page ? { ...page, rows: readAll(page.rows) } : page;
}

/** The amount a recipient has available in a currency (minor units), as kept. */
export async function availableBalance(db: Knex, recipientId: string, currency: string, exponent: number): Promise<bigint> {
  const row = await db<{ address: string; currency: string; exponent: number; balance_minor: string }>('ledger_account_balances')
    .where({ address: recipientAddress(recipientId, 'available'), currency, exponent })
    .first('balance_minor');
  return row ? BigInt(row.balance_minor) : 0n;
}

/** A payout's event and the deliveries it owes (one function for every object's, src/webhooks/deliveryPlan.repository.ts). */
async function recordPayoutDeliveries(tx: Knex.Transaction, p: PayoutRow, event: PayoutEvent): Promise<void> {
  const scope = { accountId: p.account_id, livemode: p.livemode };
  await recordEvent(tx, { scope, objectId: p.id, owner: { payout_id: p.id }, envelope: payoutEnvelope(p, event) });
}

/** The ledger entry of a payout's step: its whole amount from one of the recipient's balances to another. */
async function postMovement(tx: Knex.Transaction, p: PayoutRow, movement: PayoutMovement, entryType: PayoutEntryType, at: Date) {
  await postEntry(tx, {
    idempotencyKey: payoutEntryKey(p.id, entryType),
    recipientId: p.recipient_id,
    version: p.version,
    accountId: p.account_id,
    livemode: p.livemode,
    currency: p.currency,
    exponent: p.amount_exponent,
    type: entryType,
    at,
    postings: payoutPostings(movement, p.amount).map(({ balance, amount }) => ({
      account: `recipient_${balance}` as const,
      address: recipientAddress(p.recipient_id, balance),
      amount,
    })),
  });
}

export interface NewPayout {
  id: string;
  scope: Scope;
  recipientId: string;
  bankAccountId: string;
  amount: bigint;
  currency: string;
  exponent: number;
  endToEndId: string;
  at: Date;
}

/**
 * A new payout, its creation's entry (available → in_transit) and its `payout.created` deliveries in
 * one transaction. PostgreSQL refuses the entry when `available` would go below zero (a
 * check_violation on ledger_account_balances_not_negative): of two payouts racing for the same
 * money, the second is never written. A retry with the same id writes nothing twice.
 */
export async function insertPayout(db: Knex, p: NewPayout): Promise<PayoutRow> {
  return db.transaction(async (tx) => {
    const inserted: StoredPayout<PayoutRow>[] = await tx('payouts')
      .insert({
        id: p.id,
        account_id: p.scope.accountId,
        livemode: p.scope.livemode,
        recipient_id: p.recipientId,
        bank_account_id: p.bankAccountId,
        amount: p.amount.toString(),
        currency: p.currency,
        amount_exponent: p.exponent,
        status: PAYOUT_CREATION.to,
        failure_code: null,
        end_to_end_id: p.endToEndId,
        version: 1,
        created_at: p.at,
        updated_at: p.at,
      })
      .onConflict('id')
      .ignore()
      .returning('*');
    const row = readOne(inserted.at(0));
    if (!row) return readOne(await tx('payouts').where({ id: p.id }).first())!;
    await postMovement(tx, row, PAYOUT_CREATION.movement, PAYOUT_CREATION.entryType, p.at);
    await recordPayoutDeliveries(tx, row, PAYOUT_CREATION.event);
    return row;
  });
}

/** Whether a write was refused because a recipient's balance (or a payment's custody) would go below zero. */
export function isNegativeBalance(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string } | undefined;
  return e?.code === '23514' && e.constraint === 'ledger_account_balances_not_negative';
}

export type PayoutStepResult = { ok: true; row: PayoutRow; applied: boolean } | { ok: false; row: PayoutRow; message: string };

/**
 * One step of a payout (docs/payouts.md, "A payout's life"), under its row's lock: the row's new
 * status and version, the step's ledger entry, the bank account marked `errored` when the failure is
 * the account's own (its currency's default handed on), and the deliveries of its event. A step the
 * row already shows is not applied again (`applied: false`): an activity's retry after its commit.
 */
export async function applyPayoutStep(
  db: Knex,
  payoutId: string,
  step: { action: PayoutAction; failureCode?: PayoutFailureCode | null | undefined },
  at: Date,
): Promise<PayoutStepResult> {
  return db.transaction(async (tx) => {
    const row = readOne(await tx('payouts').where({ id: payoutId }).forUpdate().first());
    if (!row) throw new Error(`no payout ${payoutId}`);
    const check = checkPayoutTransition(row.status, step.action);
    if (!check.ok) {
      const already = PAYOUT_TRANSITIONS.some((t) => t.action === step.action && t.to === row.status);
      return already ? { ok: true, row, applied: false } : { ok: false, row, message: check.message };
    }
    const t = check.transition;
    const failureCode = t.to === 'failed' || t.to === 'returned' ? (step.failureCode ?? 'could_not_process') : null;
    const [next] = readAll(
      await tx('payouts')
        .where({ id: payoutId })
        .update({ status: t.to, failure_code: failureCode, version: row.version + 1, updated_at: at })
        .returning('*'),
    );
    if (t.movement && t.entryType) await postMovement(tx, next, t.movement, t.entryType, at);
    if (failureCode && marksBankAccountErrored(failureCode)) {
      const scope = { accountId: row.account_id, livemode: row.livemode };
      // The recipient's lock, as every change of its bank accounts' defaults takes it.
      await tx('recipients').where({ id: row.recipient_id }).forUpdate().first('id');
      await tx('bank_accounts').where({ id: row.bank_account_id }).whereIn('status', ['new', 'verified']).update({ status: 'errored' });
      await settleDefault(tx, scope, row.recipient_id, row.currency);
    }
    if (t.event) await recordPayoutDeliveries(tx, next, t.event);
    return { ok: true, row: next, applied: true };
  });
}

/** Move a test payout's clock record (the workflow holds the clock; the row shows how far it was moved). */
export async function recordPayoutClock(db: Knex, payoutId: string, offsetSeconds: number): Promise<void> {
  await db('payouts').where({ id: payoutId }).update({ clock_offset_seconds: offsetSeconds });
}

/** A payout's deliveries whose series may not have started (none attempted yet, still pending). */
export async function unattemptedPayoutDeliveries(
  db: Knex,
  payoutId: string,
): Promise<{ id: string; webhook_id: string; event: string }[]> {
  return db<{ id: string; webhook_id: string; event: string; payout_id: string; status: string; attempts: number; created_at: Date }>(
    'webhook_deliveries',
  )
    .where({ payout_id: payoutId, status: 'pending', attempts: 0 })
    .orderBy(['created_at', 'id'])
    .select('id', 'webhook_id', 'event');
}

// Live payouts' files (src/payouts/payoutBatch.activities.ts): which payouts a batch carries, by its MsgId.

/** Live payouts in no file yet: pending ones, and sent ones an earlier version's batch did not record (a worker killed in between). */
export async function unbatchedLivePayouts(
  db: Knex,
  limit: number,
): Promise<
  {
    id: string;
    status: PayoutStatus;
    currency: string;
    bank_account_id: string;
    number_sealed: string | null;
    account_holder_name: string;
  }[]
> {
  return db('payouts as p')
    .join('bank_accounts as b', 'b.id', 'p.bank_account_id')
    .where('p.livemode', true)
    .whereNull('p.message_id')
    .whereIn('p.status', ['pending', 'in_transit'])
    .orderBy([{ column: 'p.created_at' }, { column: 'p.id' }])
    .limit(limit)
    .select('p.id', 'p.status', 'p.currency', 'p.bank_account_id', 'b.number_sealed', 'b.account_holder_name');
}

/** Record the live payouts `ids` (those that entered the file) as the batch `messageId`'s, unless already in a file. */
export async function assignBatch(db: Knex, messageId: string, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000) {
    await db('payouts')
      .where('livemode', true)
      .whereNull('message_id')
      .whereIn('id', ids.slice(i, i + 1000))
      .update({ message_id: messageId });
  }
}

export interface BatchPayout extends PayoutRow {
  account_holder_name: string;
  number_sealed: string | null;
}

/** The payouts of the batch `messageId`, in a fixed order, with their bank account's holder and sealed number. */
export async function batchPayouts(db: Knex, messageId: string): Promise<BatchPayout[]> {
  const rows: StoredPayout<BatchPayout>[] = await db('payouts as p')
    .join('bank_accounts as b', 'b.id', 'p.bank_account_id')
    .where('p.message_id', messageId)
    .orderBy('p.id')
    .select('p.*', 'b.account_holder_name', 'b.number_sealed');
  return readAll<BatchPayout>(rows);
}

/**
 * The live payouts a bank file may name, whichever account's (docs/bank.md): by EndToEndId, a
 * thousand at a time (a file may name tens of thousands), and those of the credit transfer file
 * `messageId` (a pain.002 rejecting it whole).
 */
export async function livePayoutsForBankFile(
  db: Knex,
  endToEndIds: string[],
  messageId: string | null,
): Promise<{ byEndToEndId: PayoutRow[]; ofFile: PayoutRow[] }> {
  const byEndToEndId: PayoutRow[] = [];
  for (let i = 0; i < endToEndIds.length; i += 1000) {
    byEndToEndId.push(
      ...readAll(
        await db('payouts')
          .where('livemode', true)
          .whereIn('end_to_end_id', endToEndIds.slice(i, i + 1000)),
      ),
    );
  }
  const ofFile = messageId === null ? [] : readAll(await db('payouts').where({ livemode: true, message_id: messageId }).orderBy('id'));
  return { byEndToEndId, ofFile };
}
