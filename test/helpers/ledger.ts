/** Ledger movements the tests write as a payout would, straight through the ledger's own writer (src/ledger/ledgerAccounts.repository.ts). */
import type { Knex } from 'knex';
import { postEntry } from '../../src/ledger/ledgerAccounts.repository';
import { type RecipientBalance, recipientAddress } from '../../src/ledger/ledger.rules';

/**
 * `minor` (USD, test mode) from one of a recipient's balances to another, as one entry under
 * `idempotencyKey`: false when that key was written before.
 */
export function moveRecipientMoney(
  db: Knex,
  move: {
    accountId: string;
    recipientId: string;
    idempotencyKey: string;
    version: number;
    from: RecipientBalance;
    to: RecipientBalance;
    minor: bigint;
  },
): Promise<boolean> {
  const { accountId, recipientId, idempotencyKey, version, from, to, minor } = move;
  return db.transaction((tx) =>
    postEntry(tx, {
      idempotencyKey,
      recipientId,
      version,
      accountId,
      livemode: false,
      currency: 'USD',
      exponent: 2,
      type: 'make_available',
      at: new Date(),
      postings: [
        { account: `recipient_${from}`, address: recipientAddress(recipientId, from), amount: -minor },
        { account: `recipient_${to}`, address: recipientAddress(recipientId, to), amount: minor },
      ],
    }),
  );
}
