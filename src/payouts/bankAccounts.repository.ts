/**
 * The bank account repository (docs/payouts.md, "Bank accounts"): rows per recipient with the
 * number sealed, the default per currency kept under the recipient's lock, deletion that keeps the
 * row for the payouts that name it but erases its number.
 */
import type { Knex } from 'knex';
import { defaultBankAccount } from './bankAccounts.rules';
import { REDACTED } from '../payments/personalData.rules';
import type { Scope } from '../tenants/tenancy.rules';
import type { BankAccountFields } from './bankAccount.view';

/** A row of bank_accounts: what its view reads, with its tenancy, sealed number and dates. */
export interface BankAccountRow extends BankAccountFields {
  account_id: string;
  livemode: boolean;
  number_sealed: string | null;
  created_at: Date;
  deleted_at: Date | null;
}

export type NewBankAccount = Omit<BankAccountRow, 'default_for_currency' | 'deleted_at' | 'status'>;

const live = (db: Knex | Knex.Transaction, scope: Scope, recipientId: string) =>
  db<BankAccountRow>('bank_accounts')
    .where({ account_id: scope.accountId, livemode: scope.livemode, recipient_id: recipientId })
    .whereNull('deleted_at');

/** Make the default of `currency` the one `defaultBankAccount` chooses, inside `tx` (the recipient's row locked). */
export async function settleDefault(tx: Knex.Transaction, scope: Scope, recipientId: string, currency: string): Promise<void> {
  const rows = await live(tx, scope, recipientId).andWhere({ currency }).orderBy(['created_at', 'id']);
  const chosen = defaultBankAccount(
    rows.map((r) => ({ id: r.id, currency: r.currency, status: r.status, defaultForCurrency: r.default_for_currency })),
    currency,
  );
  await live(tx, scope, recipientId)
    .andWhere({ currency, default_for_currency: true })
    .whereNot('id', chosen ?? '')
    .update({ default_for_currency: false });
  if (chosen) await tx('bank_accounts').where({ id: chosen }).update({ default_for_currency: true });
}

/**
 * Insert a bank account of a recipient of `scope`; a retry with the same id writes nothing twice.
 * Undefined when there is no such recipient.
 */
/**
 * A new bank account under its recipient's lock; undefined when there is no such recipient, and
 * `erasedAt` when it was erased (it takes no bank account: docs/concepts.md, "Recipients").
 */
export async function insertBankAccount(
  db: Knex,
  scope: Scope,
  account: NewBankAccount,
): Promise<BankAccountRow | { erasedAt: string } | undefined> {
  return db.transaction(async (tx) => {
    const recipient: { id: string; redacted_at: Date | null } | undefined = await tx('recipients')
      .where({ id: account.recipient_id, account_id: scope.accountId, livemode: scope.livemode })
      .forUpdate()
      .first('id', 'redacted_at');
    if (!recipient) return undefined;
    // Erased meanwhile (under this lock, as redaction takes it): no bank account may be added.
    if (recipient.redacted_at) return { erasedAt: recipient.redacted_at.toISOString() };
    await tx('bank_accounts')
      .insert({ ...account, status: 'new', default_for_currency: false })
      .onConflict('id')
      .ignore();
    await settleDefault(tx, scope, account.recipient_id, account.currency);
    return (await tx<BankAccountRow>('bank_accounts').where({ id: account.id }).first())!;
  });
}

/** A recipient's bank accounts not deleted, oldest first. */
export async function listBankAccounts(db: Knex, scope: Scope, recipientId: string): Promise<BankAccountRow[]> {
  return live(db, scope, recipientId).orderBy(['created_at', 'id']);
}

/** Delete one: its number erased, the default handed on. False when the recipient has no such account. */
export async function deleteBankAccount(
  db: Knex,
  scope: Scope,
  recipientId: string,
  id: string,
): Promise<boolean | { waitingPayout: string }> {
  return db.transaction(async (tx) => {
    const recipient = await tx('recipients')
      .where({ id: recipientId, account_id: scope.accountId, livemode: scope.livemode })
      .forUpdate()
      .first('id');
    if (!recipient) return false;
    const row = await live(tx, scope, recipientId).andWhere({ id }).first();
    if (!row) return false;
    // A live payout still pending waits for its file, which reads this number (docs/bank.md, "The outbox").
    const waiting = await tx<{ id: string; bank_account_id: string; livemode: boolean; status: string }>('payouts')
      .where({ bank_account_id: id, livemode: true, status: 'pending' })
      .first('id');
    if (waiting) return { waitingPayout: waiting.id };
    await tx('bank_accounts')
      .where({ id })
      .update({ deleted_at: new Date(), number_sealed: null, status: 'disabled', default_for_currency: false });
    await settleDefault(tx, scope, recipientId, row.currency);
    return true;
  });
}

/**
 * Erase a redacted recipient's bank details inside `tx` (its row locked by the redaction): every
 * account deleted, its number, holder's name, last4 and fingerprint erased; stored idempotent
 * answers that showed one erased the same. Idempotent.
 */
export async function eraseBankAccounts(tx: Knex.Transaction, scope: Scope, recipientId: string): Promise<void> {
  const erased = { account_holder_name: REDACTED, last4: REDACTED, fingerprint: REDACTED };
  const rows = await tx<BankAccountRow>('bank_accounts')
    .where({ account_id: scope.accountId, livemode: scope.livemode, recipient_id: recipientId })
    .update({
      ...erased,
      number_sealed: null,
      status: 'disabled',
      default_for_currency: false,
      deleted_at: tx.raw('coalesce(deleted_at, now())'),
    })
    .returning('id');
  if (rows.length === 0) return;
  const answers = await tx<{ key: string; response_body: string; account_id: string; livemode: boolean }>('idempotency_keys')
    .where('account_id', scope.accountId)
    .andWhere('livemode', scope.livemode)
    .andWhere('response_body', 'like', `%${JSON.stringify(recipientId)}%`)
    .select('key', 'response_body');
  for (const a of answers) {
    const value = JSON.parse(a.response_body) as Record<string, unknown> | null;
    if (value?.object !== 'bank_account' || value.recipient !== recipientId) continue;
    await tx('idempotency_keys')
      .where({ account_id: scope.accountId, livemode: scope.livemode, key: a.key })
      .update({ response_body: JSON.stringify({ ...value, ...erased }) });
  }
}
