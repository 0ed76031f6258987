/**
 * Live money in the ledger as bank funding (#54) books it (docs/reconciliation.md, "What the ledger
 * holds"), written through the ledger's one writer (`postTransfers`) with the bank's booking on each
 * entry made from one: a credit funding a payment, a deposit the platform reported and its
 * settlement, releases, payouts paid and returned, refunds paid back. For the reconciliation's tests,
 * inside a transaction they roll back, so that no run sees another's money.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { EntryType, Transfer } from '../../src/ledger/ledger.rules';
import { escrowAddress, recipientAddress } from '../../src/ledger/ledger.rules';
import { postTransfers } from '../../src/ledger/transfers.repository';

const BANK = 'bank:custody';

/** Run `fn` in a transaction that is rolled back whatever happens; its answer. */
export async function rolledBack<T>(db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const rollback = new Error('rolled back on purpose');
  let out: T | undefined;
  await db
    .transaction(async (trx) => {
      out = await fn(trx);
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return out as T;
}

export function custodyBook(db: Knex.Transaction, accountId: string, currency: string) {
  let version = 0;
  const post = async (
    code: string,
    owner: { paymentId?: string; recipientId?: string },
    transfers: Transfer[],
    at: Date,
    bank?: { bookedOn: string; reference: string | null; entryRef?: string | null },
  ) => {
    await postTransfers(db, [
      {
        key: `reconciliation-test|${randomUUID()}`,
        // The entry types of bank funding (#54): not all in ENTRY_TYPES on this branch.
        code: code as EntryType,
        paymentId: owner.paymentId ?? null,
        milestoneId: null,
        recipientId: owner.recipientId ?? null,
        version: (version += 1),
        accountId,
        livemode: true,
        currency,
        exponent: 2,
        at,
        transfers,
        ...(bank ? { bank: { bookedOn: bank.bookedOn, reference: bank.reference, entryRef: bank.entryRef ?? null } } : {}),
      },
    ]);
  };
  const noon = (day: string) => new Date(`${day}T12:00:00Z`);
  return {
    /** A live payment's row (the ledger's entries name it). */
    async payment(amount: bigint): Promise<string> {
      const id = `pay_${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`;
      const at = new Date('2026-11-01T10:00:00Z');
      await db('payments').insert({
        id,
        account_id: accountId,
        livemode: true,
        amount_minor: amount.toString(),
        amount_exponent: 2,
        currency,
        status: 'in_custody',
        payer_email: 'payer@example.com',
        recipient_email: 'recipient@example.com',
        metadata: '{}',
        milestones: '[]',
        deposit_deadline: at,
        created_at: at,
        updated_at: at,
        version: 1,
      });
      return id;
    },
    /** A booked credit with the payment's reference funds it. */
    fundByBank: (paymentId: string, amount: bigint, day: string, reference: string, entryRef?: string) =>
      post('bank_funding', { paymentId }, [{ debit: BANK, credit: escrowAddress(paymentId), amount }], noon(day), {
        bookedOn: day,
        reference,
        entryRef,
      }),
    /** The platform reports a deposit (funding "api") on `day`. */
    fundByApi: (paymentId: string, amount: bigint, day: string) =>
      post('deposit', { paymentId }, [{ debit: 'payer_deposits', credit: escrowAddress(paymentId), amount }], noon(day)),
    /** The bank's booked credit for a reported deposit. */
    settle: (paymentId: string, amount: bigint, day: string, reference: string, entryRef?: string) =>
      post('bank_settlement', { paymentId }, [{ debit: BANK, credit: 'payer_deposits', amount }], noon(day), {
        bookedOn: day,
        reference,
        entryRef,
      }),
    release: (paymentId: string, recipientId: string, amount: bigint, fee: bigint) =>
      post(
        'release',
        { paymentId, recipientId },
        [
          { debit: escrowAddress(paymentId), credit: recipientAddress(recipientId, 'pending'), amount: amount - fee },
          { debit: escrowAddress(paymentId), credit: 'platform_fees', amount: fee },
        ].filter((t) => t.amount > 0n),
        new Date(),
      ),
    makeAvailable: (recipientId: string, amount: bigint) =>
      post(
        'make_available',
        { recipientId },
        [{ debit: recipientAddress(recipientId, 'pending'), credit: recipientAddress(recipientId, 'available'), amount }],
        new Date(),
      ),
    payout: (recipientId: string, amount: bigint) =>
      post(
        'payout',
        { recipientId },
        [{ debit: recipientAddress(recipientId, 'available'), credit: recipientAddress(recipientId, 'in_transit'), amount }],
        new Date(),
      ),
    payoutPaid: (recipientId: string, amount: bigint, day: string, endToEndId: string) =>
      post(
        'payout_paid',
        { recipientId },
        [{ debit: recipientAddress(recipientId, 'in_transit'), credit: recipientAddress(recipientId, 'paid_out'), amount }],
        noon(day),
        { bookedOn: day, reference: endToEndId },
      ),
    payoutReturned: (recipientId: string, amount: bigint, day: string, endToEndId: string) =>
      post(
        'payout_returned',
        { recipientId },
        [{ debit: recipientAddress(recipientId, 'paid_out'), credit: recipientAddress(recipientId, 'available'), amount }],
        noon(day),
        { bookedOn: day, reference: endToEndId },
      ),
    refund: (paymentId: string, amount: bigint) =>
      post('refund', { paymentId }, [{ debit: escrowAddress(paymentId), credit: 'payer_refunds', amount }], new Date()),
    refundPaid: (paymentId: string, amount: bigint, day: string, endToEndId: string) =>
      post('bank_return_paid', { paymentId }, [{ debit: 'payer_refunds', credit: BANK, amount }], noon(day), {
        bookedOn: day,
        reference: endToEndId,
      }),
  };
}
