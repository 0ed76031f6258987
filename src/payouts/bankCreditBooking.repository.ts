/**
 * Booking one credit of the bank (docs/bank.md, "Funding by bank transfer"): taken once by its entry
 * key, matched by its ISO 11649 reference to a payment of the same mode. A `bank_transfer` payment
 * pending_deposit in the same currency takes it through its workflow (`fund`, the caller's Temporal
 * call: the bank inbox's activity and the test helper's use case each make it); an `api` payment's
 * settlement is recorded; anything else, and an overpayment's excess, is an unapplied credit of the
 * payment's account, or the operator's when it names no payment. A credit of an account is its
 * `bank_credit.received` event, and `bank_credit.applied` once a payment takes it (docs/webhooks.md,
 * "Bank credit events"), their deliveries started by the caller's `announce`.
 */
import type { Knex } from 'knex';
import { findPaymentByFundingReference } from '../payments/payments.repository';
import { normalReference } from '../payments/fundingReference.rules';
import type { PaymentRecord } from '../payments/paymentRecord.rules';
import type { HistoryEntry, PaymentState } from '../payments/paymentTypes.rules';
import type { BankCreditEvent, BankCreditStatus } from './bankCredit.rules';
import { type OwedDeliveries, recordBankCreditEvent } from './bankCreditEvents.repository';
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

/** Start the deliveries a credit's events owe, on the one road (docs/webhooks.md): the caller's Temporal client. */
export type Announce = (owed: OwedDeliveries) => Promise<void>;

export interface BookingDeps {
  db: Knex;
  fund: Fund;
  announce: Announce;
}

/** The credit's events, in order, in one transaction (`db`'s when it is one): what their deliveries owe (nothing for an operator's credit). */
async function emit(db: Knex | Knex.Transaction, row: BankCreditRow, ...types: BankCreditEvent[]): Promise<OwedDeliveries[]> {
  const record = async (tx: Knex.Transaction) => {
    const owed: OwedDeliveries[] = [];
    for (const type of types) owed.push(await recordBankCreditEvent(tx, row, type));
    return owed;
  };
  return db.isTransaction ? record(db as Knex.Transaction) : (db as Knex).transaction(record);
}

/** Each event's deliveries started, after the transaction that recorded them. */
const announceAll = async (announce: Announce, owed: OwedDeliveries[]) => {
  for (const o of owed) if (o.deliveries.length > 0) await announce(o);
};

/**
 * Claim the entry and record its events in one transaction: a credit claimed is never without its
 * events. `applied`: a payment takes it (an api payment's settlement); else it is unapplied.
 */
async function claimWithEvents(
  { db, announce }: BookingDeps,
  c: NewBankCredit,
  owner: { accountId: string | null; paymentId: string | null; status: BankCreditStatus },
): Promise<{ row: BankCreditRow; claimed: boolean }> {
  const types: BankCreditEvent[] = owner.status === 'applied' ? ['bank_credit.received', 'bank_credit.applied'] : ['bank_credit.received'];
  let owed: OwedDeliveries[] = [];
  const result = await db.transaction(async (tx) => {
    const claim = await claimCredit(tx, c, owner);
    if (claim.claimed) owed = await emit(tx, claim.row, ...types);
    return claim;
  });
  await announceAll(announce, owed);
  return result;
}

/** A credit that funds nothing: unapplied, its money in its own ledger account. */
async function unapplied(
  deps: BookingDeps,
  c: NewBankCredit,
  owner: { accountId: string | null; paymentId: string | null },
): Promise<Booked> {
  const { row, claimed } = await claimWithEvents(deps, c, { ...owner, status: 'unapplied' });
  if (claimed) await postCreditReceived(deps.db, row, new Date());
  return { credits: [row], again: !claimed };
}

/** A `bank_transfer` payment pending_deposit takes the credit; refused (closed, past its deadline), it is unapplied. */
async function fund(deps: BookingDeps, c: NewBankCredit, payment: PaymentRecord): Promise<Booked> {
  const { db, fund: send, announce } = deps;
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
    // Moved and its event recorded in one transaction: a retry finds it unapplied and records nothing again.
    let owed: OwedDeliveries[] = [];
    const moved = await db.transaction(async (tx) => {
      const back = await moveCredit(tx, row.id, 'applied', 'unapplied');
      if (back) owed = await emit(tx, back, 'bank_credit.received');
      return back;
    });
    await announceAll(announce, owed);
    await postCreditReceived(db, moved ?? row, new Date());
    return { credits: [moved ?? row], again: !claimed };
  }
  // The update answered once its publication (read model, ledger, trail) was committed (docs/architecture.md, "One writer per aggregate").
  const excess = c.amountMinor - outcome.appliedMinor;
  const taken = { ...row, amount_minor: excess > 0n ? outcome.appliedMinor : row.amount_minor };
  if (excess > 0n) await setCreditAmount(db, row.id, outcome.appliedMinor);
  // Received and taken at once: both events at its first version; a retry (the update answers the same) records them once.
  await announceAll(announce, await emit(db, taken, 'bank_credit.received', 'bank_credit.applied'));
  if (excess <= 0n) return { credits: [row], again: !claimed };
  // The excess of an overpayment: an unapplied credit of the payment's account, an entry of its own.
  const rest = await unapplied(
    deps,
    { ...c, entryKey: `${c.entryKey}|excess`, amountMinor: excess },
    {
      accountId: payment.accountId,
      paymentId: payment.id,
    },
  );
  return { credits: [taken, ...rest.credits], again: !claimed };
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
  if (!payment) return unapplied(deps, { ...c, reference: reference ?? c.reference }, { accountId: accountId ?? null, paymentId: null });
  const credit = { ...c, reference: reference! };
  const owner = { accountId: payment.accountId, paymentId: payment.id };
  if (payment.currency !== c.currency) return unapplied(deps, credit, owner);
  if (payment.funding === 'bank_transfer' && payment.status === 'pending_deposit') return fund(deps, credit, payment);
  if (payment.funding !== 'bank_transfer') {
    // An api payment's settlement from the platform, carrying its reference: its deposit is now seen at the bank.
    const { row, claimed } = await claimWithEvents(deps, credit, { ...owner, status: 'applied' });
    if (claimed) await postSettlement(db, row, payment.id, new Date());
    return { credits: [row], again: !claimed };
  }
  return unapplied(deps, credit, owner);
}
