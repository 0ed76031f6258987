/**
 * The bank files taken (docs/payouts.md): one row per file by its message id, with the answer
 * given, so the same file sent again gets the same answer and moves nothing twice.
 */
import type { Knex } from 'knex';
import type { Scope } from '../domain/tenancy';

export interface BankFileRow {
  id: string;
  account_id: string;
  livemode: boolean;
  message_id: string;
  message_type: string;
  answer: unknown;
  created_at: Date;
}

export async function findBankFile(db: Knex, scope: Scope, id: string): Promise<BankFileRow | undefined> {
  return (await db('bank_files').where({ account_id: scope.accountId, livemode: scope.livemode, id }).first()) as BankFileRow | undefined;
}

export async function bankFileByMessageId(db: Knex, scope: Scope, messageId: string): Promise<BankFileRow | undefined> {
  return (await db('bank_files').where({ account_id: scope.accountId, livemode: scope.livemode, message_id: messageId }).first()) as
    BankFileRow | undefined;
}

/** Record a file taken, with its answer; the row already there when the same file (by its message id) was taken first. */
export async function recordBankFile(db: Knex, row: BankFileRow): Promise<{ row: BankFileRow; first: boolean }> {
  const inserted: { id: string }[] = await db('bank_files')
    .insert({ ...row, answer: JSON.stringify(row.answer) })
    .onConflict(['account_id', 'livemode', 'message_id'])
    .ignore()
    .returning('id');
  if (inserted.length > 0) return { row, first: true };
  const earlier = await bankFileByMessageId(db, { accountId: row.account_id, livemode: row.livemode }, row.message_id);
  return { row: earlier!, first: false };
}
