/**
 * Booking one credit of the bank (docs/bank.md, "Funding by bank transfer"): taken once by its entry
 * key, matched by its ISO 11649 reference to a payment of the same mode. A `bank_transfer` payment
 * pending_deposit in the same currency takes it through its workflow (`fund`, the caller's Temporal
 * call: the bank inbox's activity and the test helper's use case each make it); an `api` payment's
 * settlement is recorded; anything else, and an overpayment's excess, is an unapplied credit of the
 * payment's account, or the operator's when it names no payment.
 */
import type { Knex } from 'knex';
import { findPaymentByFundingReference } from '../payments/payments.repository';
import { normalReference } from '../payments/fundingReference.rules';
import type { PaymentRecord } from '../payments/paymentRecord.rules';
import type { HistoryEntry, PaymentState } from '../payments/paymentTypes.rules';
import {
  type BankCreditRow,
  type NewBankCredit,
  claimCredit,
  moveCredit,
  postCreditReceived,
  postSettlement,
  setCreditAmount,
} from './bankCredits.repository';
import { makeBookedReleasesAvailable } from '../ledger/availability.repository';

/** What booking one entry did: the credit rows it left (the applied part, and any unapplied one). */
export interface Booked {
  credits: BankCreditRow[];
  /** The entry was taken before (the same entry key): nothing changed now. */
  again: boolean;
}

/** A payment's `receiveFunds` update, as the caller sends it; `refused` when the payment cannot take the credit (or its run closed). */
export type Fund = (
  paymentId: string,
  msg: { creditId: string; amountMinor: bigint; bookedOn: string; bankEntryRef: string | null; applied?: true },
) => Promise<{ payment: PaymentState; entry?: HistoryEntry; appliedMinor: bigint } | 'refused'>;

export interface BookingDeps {
  db: Knex;
  fund: Fund;
}

/** A credit that funds nothing: unapplied, its money in its own ledger account. */
async function unapplied(db: Knex, c: NewBankCredit, owner: { accountId: string | null; paymentId: string | null }): Promise<Booked> {
  const { row, claimed } = await claimCredit(db, c, { ...owner, status: 'unapplied' });
  if (claimed) await postCreditReceived(db, row, new Date());
  return { credits: [row], again: !claimed };
}

/** A `bank_transfer` payment pending_deposit takes the credit; refused (closed, past its deadline), it is unapplied. */
async function fund({ db, fund: send }: BookingDeps, c: NewBankCredit, payment: PaymentRecord): Promise<Booked> {
  const { row, claimed } = await claimCredit(db, c, { accountId: payment.accountId, paymentId: payment.id, status: 'applied' });
  if (!claimed && row.status !== 'applied') return { credits: [row], again: true };
  // The credit's id is the update's: the workflow takes a credit once, and a retry after a crash asks again.
  const outcome = await send(payment.id, {
    creditId: row.id,
    amountMinor: c.amountMinor,
    bookedOn: c.bookedOn,
    bankEntryRef: c.bankEntryRef,
  });
  if (outcome === 'refused') {
    const moved = (await moveCredit(db, row.id, 'applied', 'unapplied')) ?? row;
    await postCreditReceived(db, moved, new Date());
    return { credits: [moved], again: !claimed };
  }
  // The update answered once its publication (read model, ledger, trail) was committed (docs/architecture.md, "One writer per aggregate").
  const excess = c.amountMinor - outcome.appliedMinor;
  if (excess <= 0n) return { credits: [row], again: !claimed };
  // The excess of an overpayment: an unapplied credit of the payment's account, an entry of its own.
  await setCreditAmount(db, row.id, outcome.appliedMinor);
  const rest = await unapplied(
    db,
    { ...c, entryKey: `${c.entryKey}|excess`, amountMinor: excess },
    {
      accountId: payment.accountId,
      paymentId: payment.id,
    },
  );
  return { credits: [{ ...row, amount_minor: outcome.appliedMinor }, ...rest.credits], again: !claimed };
}

/**
 * Book one credit. `accountId`: test mode's caller, whose own payments alone its simulated transfer
 * may fund, and whose the credit is when it names none of them. A live credit a payment took may
 * complete its funding: its releases still pending then become available (docs/bank.md, "Live
 * availability"), on a retry too (each release's entry is keyed once).
 */
export async function bookCredit(deps: BookingDeps, c: NewBankCredit, accountId?: string): Promise<Booked> {
  const booked = await matchCredit(deps, c, accountId);
  const taken = booked.credits.find((r) => r.status === 'applied' && r.payment_id !== null);
  if (c.livemode && taken) await makeBookedReleasesAvailable(deps.db, taken.payment_id!);
  return booked;
}

/** The credit matched by its reference: a payment's funding, its settlement, or an unapplied credit. */
async function matchCredit(deps: BookingDeps, c: NewBankCredit, accountId?: string): Promise<Booked> {
  const { db } = deps;
  const reference = c.reference === null ? undefined : normalReference(c.reference);
  const found = reference === undefined ? undefined : await findPaymentByFundingReference(db, reference, c.livemode);
  const payment = found && (accountId === undefined || found.accountId === accountId) ? found : undefined;
  if (!payment) return unapplied(db, { ...c, reference: reference ?? c.reference }, { accountId: accountId ?? null, paymentId: null });
  const credit = { ...c, reference: reference! };
  const owner = { accountId: payment.accountId, paymentId: payment.id };
  if (payment.currency !== c.currency) return unapplied(db, credit, owner);
  if (payment.funding === 'bank_transfer' && payment.status === 'pending_deposit') return fund(deps, credit, payment);
  if (payment.funding !== 'bank_transfer') {
    // An api payment's settlement from the platform, carrying its reference: its deposit is now seen at the bank.
    const { row, claimed } = await claimCredit(db, credit, { ...owner, status: 'applied' });
    if (claimed) await postSettlement(db, row, payment.id, new Date());
    return { credits: [row], again: !claimed };
  }
  return unapplied(db, credit, owner);
}
