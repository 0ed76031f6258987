/**
 * The money rules of docs/money.md, pure: a payment's amounts (held, released, refunded, fee), the
 * movement each transition makes, and the double-entry postings that record it. Integer minor units
 * as bigint throughout; read by the workflow, the projection, `ledger:verify` and the tests.
 */

/**
 * The kinds of ledger account, each also summed per account, mode and currency (the balance of
 * GET /balance). `custody` is one account per payment (`escrow:pay_…`); the `recipient_*` kinds one
 * per recipient and currency (`recipient:rcp_…:pending`…); the others one per account, mode and currency.
 */
export const LEDGER_ACCOUNTS = [
  'payer_deposits',
  'custody',
  'recipient_payable',
  'payer_refunds',
  'platform_fees',
  'recipient_pending',
  'recipient_available',
  'recipient_in_transit',
  'recipient_paid_out',
  // The operator's custody account at the bank (`bank:custody`), a world account like payer_deposits,
  // and a credit booked there that funds nothing yet (`bank_credit:bc_…`), a party's (docs/bank.md).
  'custody_bank',
  'unapplied_credit',
] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

/** A recipient's four accounts per currency (docs/money.md): released while payouts are disabled, payable, on its way to a bank, paid. */
export const RECIPIENT_BALANCES = ['pending', 'available', 'in_transit', 'paid_out'] as const;
export type RecipientBalance = (typeof RECIPIENT_BALANCES)[number];

/** The address of a payment's custody account. */
export const escrowAddress = (paymentId: string) => `escrow:${paymentId}`;

/** The custody account at the bank, one balance row per tenant, mode and currency (docs/bank.md). */
export const BANK_CUSTODY = 'bank:custody';

/** The address of an unapplied credit (`bc_…`). */
export const bankCreditAddress = (creditId: string) => `bank_credit:${creditId}`;

/** The address of one of a recipient's accounts. */
export const recipientAddress = (recipientId: string, balance: RecipientBalance) => `recipient:${recipientId}:${balance}`;

/** A payout's entries (docs/payouts.md) are its steps': `payout` (created), `payout_paid`, `payout_failed`, `payout_canceled`, `payout_returned`. */
export const ENTRY_TYPES = [
  'deposit',
  'refund',
  'release',
  'split',
  'make_available',
  'payout',
  'payout_paid',
  'payout_failed',
  'payout_canceled',
  'payout_returned',
  // Bookings of the bank (docs/bank.md, "Funding by bank transfer"): each records the booking's date and references.
  'bank_funding',
  'bank_credit_received',
  'bank_credit_applied',
  'bank_settlement',
  'bank_return_paid',
  // An operator's credit handed to the account whose payment it is applied to (docs/bank.md, "Unapplied credits").
  'bank_credit_assigned',
] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

/** What a transition does to the money (a column of the transition table). */
export type MoneyEffect = 'none' | 'deposit' | 'refund_part' | 'refund_rest' | 'release_rest' | 'split';

/** A payment's amounts, minor units. Before deposit all four are 0. */
export interface Amounts {
  held: bigint;
  released: bigint;
  refunded: bigint;
  feeCollected: bigint;
}

/** One movement of money, minor units, every part ≥ 0: what a ledger entry records. */
export interface Movement {
  deposited: bigint;
  refunded: bigint;
  /** Gross, to the recipient before the fee. */
  released: bigint;
  fee: bigint;
}

export interface Posting {
  account: LedgerAccount;
  amount: bigint;
}

export const ZERO_AMOUNTS: Amounts = { held: 0n, released: 0n, refunded: 0n, feeCollected: 0n };

/**
 * The platform's fee on what has been released so far: pro rata, rounded down, so it never exceeds
 * `platformFee` and a payment released in full collects exactly `platformFee`.
 */
export function feeOnReleased(platformFee: bigint, amount: bigint, released: bigint): bigint {
  return (platformFee * released) / amount;
}

type MovementResult = { ok: true; movement: Movement; after: Amounts } | { ok: false; field: string; message: string };

/**
 * The movement `effect` makes from `before`, and the amounts after it. `part` is the amount a
 * partial refund or a split refunds (minor units); it must be > 0 and < what is held.
 */
export function move(effect: MoneyEffect, money: { amount: bigint; platformFee: bigint }, before: Amounts, part?: bigint): MovementResult {
  const none: Movement = { deposited: 0n, refunded: 0n, released: 0n, fee: 0n };
  switch (effect) {
    case 'none':
      return { ok: true, movement: none, after: before };
    case 'deposit':
      return { ok: true, movement: { ...none, deposited: money.amount }, after: { ...ZERO_AMOUNTS, held: money.amount } };
    case 'refund_rest':
      return {
        ok: true,
        movement: { ...none, refunded: before.held },
        after: { ...before, held: 0n, refunded: before.refunded + before.held },
      };
    case 'refund_part':
    case 'split': {
      const field = effect === 'split' ? 'refund_amount' : 'amount';
      if (part === undefined || part <= 0n) return { ok: false, field, message: `${field} must be greater than 0` };
      if (part >= before.held) {
        return { ok: false, field, message: `${field} must be less than the amount held` };
      }
      if (effect === 'refund_part') {
        return {
          ok: true,
          movement: { ...none, refunded: part },
          after: { ...before, held: before.held - part, refunded: before.refunded + part },
        };
      }
      return release(money, { ...before, held: before.held - part, refunded: before.refunded + part }, part);
    }
    case 'release_rest':
      return release(money, before, 0n);
  }
}

/** Release everything held (after `refunded` has gone back to the payer in the same movement). */
function release(money: { amount: bigint; platformFee: bigint }, before: Amounts, refunded: bigint): MovementResult {
  const released = before.released + before.held;
  const feeCollected = feeOnReleased(money.platformFee, money.amount, released);
  return {
    ok: true,
    movement: { deposited: 0n, refunded, released: before.held, fee: feeCollected - before.feeCollected },
    after: { held: 0n, released, refunded: before.refunded, feeCollected },
  };
}

export function isEmptyMovement(m: Movement): boolean {
  return m.deposited === 0n && m.refunded === 0n && m.released === 0n && m.fee === 0n;
}

/** The entry type a movement is recorded as. */
export function entryTypeOf(m: Movement): EntryType {
  if (m.deposited > 0n) return 'deposit';
  if (m.refunded > 0n && m.released > 0n) return 'split';
  return m.released > 0n ? 'release' : 'refund';
}

/**
 * One transfer of the book (TigerBeetle's `Transfer`, Formance's `Posting`): `amount` minor units
 * (> 0) leave the `debit` address and reach the `credit` address. Every movement of money is a list
 * of transfers; an entry's postings are their net per address (docs/money.md, "The book").
 */
export interface Transfer {
  debit: string;
  credit: string;
  amount: bigint;
}

/** The kind of the account at an address: a payment's custody, a recipient's balance, else the address is the kind. */
export function kindOf(address: string): LedgerAccount {
  if (address.startsWith('escrow:')) return 'custody';
  if (address === BANK_CUSTODY) return 'custody_bank';
  if (address.startsWith('bank_credit:')) return 'unapplied_credit';
  if (address.startsWith('recipient:')) return `recipient_${address.slice(address.lastIndexOf(':') + 1)}` as LedgerAccount;
  return address as LedgerAccount;
}

/**
 * The transfers of one payment step's movement (docs/money.md, "The book"): deposit A
 * payer_deposits → escrow; refund r escrow → payer_refunds; release h with fee f escrow → the
 * recipient's pending (or recipient_payable without one) h−f and escrow → platform_fees f; a split
 * is both. A function of the movement and the payment's own names only. No transfer of zero.
 */
export function transfersOf(m: Movement, owner: { paymentId: string; recipientId?: string }): Transfer[] {
  const escrow = escrowAddress(owner.paymentId);
  const net = owner.recipientId ? recipientAddress(owner.recipientId, 'pending') : 'recipient_payable';
  const all: Transfer[] = [
    { debit: 'payer_deposits', credit: escrow, amount: m.deposited },
    { debit: escrow, credit: 'payer_refunds', amount: m.refunded },
    { debit: escrow, credit: net, amount: m.released - m.fee },
    { debit: escrow, credit: 'platform_fees', amount: m.fee },
  ];
  return all.filter((t) => t.amount !== 0n);
}

/** An entry's postings: its transfers' net per address, by kind (LEDGER_ACCOUNTS order) then address; no zero lines. */
export function postingsOfTransfers(transfers: readonly Transfer[]): AddressedPosting[] {
  const totals = new Map<string, bigint>();
  const add = (address: string, amount: bigint) => totals.set(address, (totals.get(address) ?? 0n) + amount);
  for (const t of transfers) {
    add(t.debit, -t.amount);
    add(t.credit, t.amount);
  }
  return [...totals]
    .filter(([, amount]) => amount !== 0n)
    .map(([address, amount]) => ({ account: kindOf(address), address, amount }))
    .sort(
      (a, b) =>
        LEDGER_ACCOUNTS.indexOf(a.account) - LEDGER_ACCOUNTS.indexOf(b.account) ||
        (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
    );
}

/**
 * The transfers of a balanced list of postings (a recipient's or a payout's entry, written as postings):
 * each debit matched to the credits in order. Two postings make one transfer.
 */
export function transfersBetween(postings: readonly { address: string; amount: bigint }[]): Transfer[] {
  const debits = postings.filter((p) => p.amount < 0n).map((p) => ({ address: p.address, left: -p.amount }));
  const out: Transfer[] = [];
  for (const c of postings.filter((p) => p.amount > 0n)) {
    let owed = c.amount;
    for (const d of debits) {
      if (owed === 0n) break;
      const amount = d.left < owed ? d.left : owed;
      if (amount === 0n) continue;
      out.push({ debit: d.address, credit: c.address, amount });
      d.left -= amount;
      owed -= amount;
    }
  }
  return out;
}

export interface AddressedPosting extends Posting {
  address: string;
}

/**
 * The double-entry postings of one movement, by kind: they sum to zero. Deposit: payer_deposits −A,
 * custody +A. Refund r: custody −r, payer_refunds +r. Release h with fee f: custody −h,
 * recipient_payable +(h−f) (a named recipient's pending), platform_fees +f. A split is both in one
 * entry. No zero postings. The net of `transfersOf`.
 */
export function postingsOf(m: Movement, toRecipient = false): Posting[] {
  return postingsOfTransfers(transfersOf(m, { paymentId: 'pay_', ...(toRecipient ? { recipientId: 'rcp_' } : {}) })).map(
    ({ account, amount }) => ({ account, amount }),
  );
}

/**
 * Per-currency balance as the API shows it, from the five ledger accounts' balances (minor units).
 * `released` is gross, as a payment's `amount_released` (recipient_payable + platform_fees);
 * `released_net` is its part owed to recipients, after `fees` (docs/money.md).
 */
export interface BalanceView {
  deposited: bigint;
  held: bigint;
  released: bigint;
  releasedNet: bigint;
  refunded: bigint;
  fees: bigint;
}

export function balanceOf(accounts: Partial<Record<LedgerAccount, bigint>>): BalanceView {
  // Every release's net, to recipient_payable or to a recipient's accounts (moves among those leave it whole).
  const releasedNet = (
    ['recipient_payable', 'recipient_pending', 'recipient_available', 'recipient_in_transit', 'recipient_paid_out'] as const
  )
    .map((a) => accounts[a] ?? 0n)
    .reduce((a, b) => a + b, 0n);
  const fees = accounts.platform_fees ?? 0n;
  return {
    deposited: -(accounts.payer_deposits ?? 0n),
    held: accounts.custody ?? 0n,
    released: releasedNet + fees,
    releasedNet,
    refunded: accounts.payer_refunds ?? 0n,
    fees,
  };
}
