/**
 * The bank files taken (docs/bank.md): since the inbox, one row per file for the whole service by
 * its message id, with its raw bytes, their SHA-256, when and whence it came, and the record of
 * what each entry did (to whose payout). Rows of the retired tenant road (`POST /api/v1/bank_files`)
 * keep their account and mode, and the answer that account was given.
 */
import type { Knex } from 'knex';
import type { Scope } from '../tenants/tenancy.rules';

/** What a taken file did, entry by entry, with the account each touched (for the operator, and to show each tenant its own). */
export interface BankFileRecord {
  entries: {
    end_to_end_id: string;
    amount: number | null;
    currency: string | null;
    outcome: string;
    payout: string;
    account: string;
  }[];
  unmatched: {
    end_to_end_id: string | null;
    amount: number | null;
    currency: string | null;
    reason: string;
    /** The payout the entry named, when there is one (the reason says why it changed nothing); null otherwise. */
    payout: string | null;
    account: string | null;
  }[];
  /** What the file's entries did to returns (docs/bank.md, "Returns"): the operator's view; a tenant's shows only payouts. */
  returns?: {
    end_to_end_id: string;
    amount: number | null;
    currency: string | null;
    outcome: string;
    return: string;
    account: string | null;
  }[];
}

export interface BankFileRow {
  id: string;
  /** The account of a file posted on the retired road; null for the operator's (the inbox's). */
  account_id: string | null;
  livemode: boolean | null;
  message_id: string;
  message_type: string;
  /** The view given on the retired road; the BankFileRecord for the operator's; null while it is being taken. */
  answer: unknown;
  raw: Buffer | null;
  sha256: string | null;
  received_at: Date | null;
  source: string | null;
  lease_until: Date | null;
  created_at: Date;
}

/** A file a tenant may ask for: its own from the retired road, or any of the operator's, already taken. */
export async function findBankFile(db: Knex, id: string): Promise<BankFileRow | undefined> {
  return (await db('bank_files').where({ id }).first()) as BankFileRow | undefined;
}

/** The operator's files taken, oldest first. */
export async function operatorBankFiles(db: Knex): Promise<BankFileRow[]> {
  return (await db('bank_files')
    .whereNull('account_id')
    .whereNotNull('answer')
    .orderBy([{ column: 'received_at' }, { column: 'id' }])) as BankFileRow[];
}

export type Claim =
  | { kind: 'claimed'; id: string }
  | { kind: 'taken'; row: BankFileRow }
  | { kind: 'busy'; row: BankFileRow }
  | { kind: 'other_content'; row: BankFileRow };

/**
 * Claim a file by its message id for the whole service: the first taker records it (raw bytes and
 * hash) and holds it for `leaseMs`; a later one finds it taken (same bytes), held by another taker
 * now (busy), or taken with other bytes. A taker killed half-way leaves its lease to run out, and
 * the next takes the same row on.
 */
export async function claimBankFile(
  db: Knex,
  file: { id: string; message_id: string; message_type: string; raw: Buffer; sha256: string; received_at: Date; source: string },
  leaseMs: number,
): Promise<Claim> {
  const leaseUntil = new Date(Date.now() + leaseMs);
  const inserted = await db.raw<{ rows: { id: string }[] }>(
    `insert into bank_files (id, account_id, livemode, message_id, message_type, answer, raw, sha256, received_at, source, lease_until, created_at)
     values (?, null, null, ?, ?, null, ?, ?, ?, ?, ?, ?)
     on conflict (message_id) where account_id is null do nothing returning id`,
    [file.id, file.message_id, file.message_type, file.raw, file.sha256, file.received_at, file.source, leaseUntil, file.received_at],
  );
  if (inserted.rows.length > 0) return { kind: 'claimed', id: file.id };
  const row = (await db('bank_files').whereNull('account_id').andWhere({ message_id: file.message_id }).first()) as BankFileRow;
  if (row.sha256 !== file.sha256) return { kind: 'other_content', row };
  if (row.answer !== null) return { kind: 'taken', row };
  const resumed: { id: string }[] = await db('bank_files')
    .where({ id: row.id })
    .whereNull('answer')
    .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', new Date()))
    .update({ lease_until: leaseUntil })
    .returning('id');
  return resumed.length > 0 ? { kind: 'claimed', id: row.id } : { kind: 'busy', row };
}

/** The file taken: its record written, its lease let go. */
export async function finishBankFile(db: Knex, id: string, record: BankFileRecord): Promise<void> {
  await db('bank_files')
    .where({ id })
    .update({ answer: JSON.stringify(record), lease_until: null });
}

/** Scope of a retired-road row, for the tenant that posted it. */
export const postedBy = (row: BankFileRow, scope: Scope) => row.account_id === scope.accountId && row.livemode === scope.livemode;
