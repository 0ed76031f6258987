/**
 * The payout rules, as data (docs/payouts.md): a payout's statuses and transitions, the ledger
 * movement each one makes between a recipient's balances, its failure codes and how a bank's ISO
 * 20022 reason code maps to one (the simulated bank of test mode: ./simulatedBank.ts). Integer minor units as
 * bigint. Pure: no I/O, no clocks, safe inside the Temporal workflow sandbox.
 */
import type { RecipientBalance } from '../ledger/ledger.rules';

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled', 'returned'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** No transition leaves these. `paid` is not among them: a bank may return a payout days after paying it. */
export const TERMINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['failed', 'canceled', 'returned'];

export const PAYOUT_EVENTS = ['payout.created', 'payout.paid', 'payout.failed', 'payout.canceled', 'payout.returned'] as const;
export type PayoutEvent = (typeof PAYOUT_EVENTS)[number];

export const PAYOUT_CREATED_EVENT: PayoutEvent = 'payout.created';
export const PAYOUT_INITIAL_STATUS: PayoutStatus = 'pending';

/**
 * What moves a payout: `send` (its file is written, or the simulated bank takes it), `pay` (the
 * bank booked the debit), `fail` (the bank rejected it), `cancel` (the client, only while pending),
 * `return` (the bank sent the money back after paying it).
 */
export const PAYOUT_ACTIONS = ['send', 'pay', 'fail', 'cancel', 'return'] as const;
export type PayoutAction = (typeof PAYOUT_ACTIONS)[number];

/** One ledger movement of a payout's whole amount from one of the recipient's balances to another. */
export interface PayoutMovement {
  from: RecipientBalance;
  to: RecipientBalance;
}

/** The ledger entry a payout step writes; each at most once per payout, so it is the entry's idempotency key too. */
/**
 * How long a paid payout may still be returned by the bank: SEPA allows returns for weeks, ACH for
 * 60 days after settlement. A paid live payout's run waits this long (src/payouts/payout.workflow.ts), and a
 * recipient paid by a payout inside it cannot be erased (docs/payouts.md, "Returns and erasure").
 */
export const PAYOUT_RETURN_WINDOW = '90 days';
export const PAYOUT_RETURN_WINDOW_MS = 90 * 24 * 3600 * 1000;

export const PAYOUT_ENTRY_TYPES = ['payout', 'payout_paid', 'payout_failed', 'payout_canceled', 'payout_returned'] as const;
export type PayoutEntryType = (typeof PAYOUT_ENTRY_TYPES)[number];

export interface PayoutTransition {
  action: PayoutAction;
  from: readonly PayoutStatus[];
  to: PayoutStatus;
  /** The event it emits; `send` emits none (the contract has no `payout.in_transit`). */
  event: PayoutEvent | null;
  /** The ledger movement it makes, and the entry that records it; null: the money stays where it is. */
  movement: PayoutMovement | null;
  entryType: PayoutEntryType | null;
}

/** Creation moves the money out of `available` at once, so two payouts can never spend it twice. */
export const PAYOUT_CREATION = {
  to: PAYOUT_INITIAL_STATUS,
  event: PAYOUT_CREATED_EVENT,
  movement: { from: 'available', to: 'in_transit' },
  entryType: 'payout',
} as const satisfies { to: PayoutStatus; event: PayoutEvent; movement: PayoutMovement; entryType: PayoutEntryType };

const BACK_TO_AVAILABLE: PayoutMovement = { from: 'in_transit', to: 'available' };

/** The payout state machine of docs/payouts.md. */
export const PAYOUT_TRANSITIONS: readonly PayoutTransition[] = [
  { action: 'send', from: ['pending'], to: 'in_transit', event: null, movement: null, entryType: null },
  {
    action: 'pay',
    from: ['in_transit'],
    to: 'paid',
    event: 'payout.paid',
    movement: { from: 'in_transit', to: 'paid_out' },
    entryType: 'payout_paid',
  },
  {
    action: 'cancel',
    from: ['pending'],
    to: 'canceled',
    event: 'payout.canceled',
    movement: BACK_TO_AVAILABLE,
    entryType: 'payout_canceled',
  },
  {
    action: 'fail',
    from: ['pending', 'in_transit'],
    to: 'failed',
    event: 'payout.failed',
    movement: BACK_TO_AVAILABLE,
    entryType: 'payout_failed',
  },
  {
    action: 'return',
    from: ['paid'],
    to: 'returned',
    event: 'payout.returned',
    movement: { from: 'paid_out', to: 'available' },
    entryType: 'payout_returned',
  },
];

export function isTerminalPayout(status: PayoutStatus): boolean {
  return TERMINAL_PAYOUT_STATUSES.includes(status);
}

type PayoutTransitionCheck = { ok: true; transition: PayoutTransition } | { ok: false; message: string };

/** Whether `action` may run from `status`: the one place that answers it. */
export function checkPayoutTransition(status: PayoutStatus, action: PayoutAction): PayoutTransitionCheck {
  const transition = PAYOUT_TRANSITIONS.find((t) => t.action === action && t.from.includes(status));
  if (!transition) return { ok: false, message: `cannot ${action} a payout whose status is ${status}` };
  return { ok: true, transition };
}

/** The statuses an action may start from (error details, documentation). */
export function payoutAllowedFrom(action: PayoutAction): PayoutStatus[] {
  return [...new Set(PAYOUT_TRANSITIONS.filter((t) => t.action === action).flatMap((t) => t.from))];
}

/** The idempotency key of a payout's ledger entry: one entry of each type per payout. */
export const payoutEntryKey = (payoutId: string, entryType: PayoutEntryType): string => `${payoutId}:${entryType}`;

/** A movement's two postings on the recipient's balances (minor units; a debit is negative). */
export function payoutPostings(movement: PayoutMovement, amount: bigint): { balance: RecipientBalance; amount: bigint }[] {
  if (amount <= 0n) throw new RangeError(`a payout moves a positive amount, not ${amount}`);
  return [
    { balance: movement.from, amount: -amount },
    { balance: movement.to, amount },
  ];
}

/**
 * What a payout's steps leave on each balance, from the creation on: the whole amount sits on exactly
 * one balance after any run of steps (in_transit, paid_out or back on available). Used by the tests
 * and as the reference the ledger's balances are checked against.
 */
export function payoutBalances(amount: bigint, statuses: readonly PayoutStatus[]): Record<RecipientBalance, bigint> {
  const totals: Record<RecipientBalance, bigint> = { pending: 0n, available: 0n, in_transit: 0n, paid_out: 0n };
  const apply = (m: PayoutMovement) => {
    totals[m.from] -= amount;
    totals[m.to] += amount;
  };
  apply(PAYOUT_CREATION.movement);
  let status: PayoutStatus = PAYOUT_INITIAL_STATUS;
  for (const next of statuses) {
    const transition = PAYOUT_TRANSITIONS.find((t) => t.to === next && t.from.includes(status));
    if (!transition) throw new Error(`no payout transition from ${status} to ${next}`);
    if (transition.movement) apply(transition.movement);
    status = next;
  }
  return totals;
}

/** Why a payout failed or came back (Stripe's names, a subset). */
export const PAYOUT_FAILURE_CODES = [
  'account_closed',
  'no_account',
  'invalid_account_number',
  'account_frozen',
  'incorrect_account_holder_name',
  'declined',
  'could_not_process',
] as const;
export type PayoutFailureCode = (typeof PAYOUT_FAILURE_CODES)[number];

/** The codes that say the bank account itself is unusable: it is marked `errored` and takes no further payout. */
export const BANK_ACCOUNT_FAILURE_CODES: readonly PayoutFailureCode[] = [
  'account_closed',
  'no_account',
  'invalid_account_number',
  'account_frozen',
  'incorrect_account_holder_name',
];

/** The payout's `failure_message` for each code. */
export const PAYOUT_FAILURE_MESSAGES: Record<PayoutFailureCode, string> = {
  account_closed: 'The bank account has been closed.',
  no_account: 'The bank account details do not match an account at the bank.',
  invalid_account_number: 'The bank account number is not valid at the bank.',
  account_frozen: 'The bank account has been frozen.',
  incorrect_account_holder_name: "The bank account holder's name does not match the bank's records.",
  declined: 'The bank declined the transfer.',
  could_not_process: 'The bank could not process the transfer.',
};

/**
 * ISO 20022 external status reason codes (pain.002 `StsRsnInf/Rsn/Cd`, camt `RtrInf/Rsn/Cd`) that
 * name a failure code of their own; every other code is `could_not_process`.
 */
export const ISO_REASON_FAILURE_CODES: Readonly<Record<string, PayoutFailureCode>> = {
  AC04: 'account_closed',
  AC01: 'invalid_account_number',
  AC06: 'account_frozen',
  AM04: 'declined',
};

export function failureCodeOfIsoReason(reason: string | null | undefined): PayoutFailureCode {
  return (reason && Object.hasOwn(ISO_REASON_FAILURE_CODES, reason) ? ISO_REASON_FAILURE_CODES[reason] : undefined) ?? 'could_not_process';
}

/**
 * A payout's `end_to_end_id`: the id the bank carries through every file about it. ISO's Max35Text,
 * within the SEPA character set (letters, digits and `/-?:().,'+ `, no `_`), so the payout id's
 * underscore becomes a hyphen: `po_01J…` → `po-01J…`.
 */
export function endToEndIdOf(payoutId: string): string {
  const id = payoutId.replace('_', '-');
  if (!/^[A-Za-z0-9-]{1,35}$/.test(id)) throw new RangeError(`not a payout id that fits an EndToEndId: ${payoutId}`);
  return id;
}

// Creating a payout: the refusals in the contract's order, and the bank account it goes to.

/** A recipient's bank account as creating a payout needs it. */
export interface PayoutBankAccount {
  id: string;
  currency: string;
  payable: boolean;
  defaultForCurrency: boolean;
}

export type PayoutCreationRefusal =
  | { code: 'payouts_not_enabled'; message: string }
  | { code: 'no_payable_bank_account'; message: string }
  /** The request names a bank account the recipient does not have: a 400 on `bank_account`. */
  | { code: 'unknown_bank_account'; message: string }
  | { code: 'insufficient_available_balance'; message: string; available: bigint };

export type PayoutCreationCheck = { ok: true; bankAccountId: string; amount: bigint } | { ok: false; refusal: PayoutCreationRefusal };

/**
 * Whether a payout may be created, checked in the contract's order: payouts enabled, then a payable
 * bank account (the one named, else the recipient's default for the currency), then the balance.
 * `amount` absent: all that is available. The balance check here is the answer's; the ledger's
 * constraint (available never below zero) is what makes two racing payouts create exactly one.
 */
export function checkPayoutCreation(input: {
  payoutsEnabled: boolean;
  currency: string;
  /** Minor units, > 0; undefined: everything available. */
  amount?: bigint | undefined;
  available: bigint;
  bankAccounts: readonly PayoutBankAccount[];
  /** The bank account the request names, if it names one. */
  bankAccountId?: string | undefined;
}): PayoutCreationCheck {
  const refuse = (refusal: PayoutCreationRefusal): PayoutCreationCheck => ({ ok: false, refusal });
  if (!input.payoutsEnabled) return refuse({ code: 'payouts_not_enabled', message: "the recipient's payouts are not enabled" });
  const named = input.bankAccountId;
  const account =
    named === undefined
      ? input.bankAccounts.find((b) => b.currency === input.currency && b.defaultForCurrency)
      : input.bankAccounts.find((b) => b.id === named);
  const noAccount = (why: string) => refuse({ code: 'no_payable_bank_account', message: `no payable bank account: ${why}` });
  if (named !== undefined && !account)
    return refuse({ code: 'unknown_bank_account', message: `bank_account ${named} is not one of the recipient's` });
  if (!account) return noAccount(`the recipient has no default bank account in ${input.currency}`);
  if (!account.payable) return noAccount(`bank account ${account.id} is errored or disabled`);
  if (account.currency !== input.currency)
    return noAccount(`bank account ${account.id} receives ${account.currency}, not ${input.currency}`);
  // The API refuses an amount of 0 or less as bad input before this.
  if (input.amount !== undefined && input.amount <= 0n) throw new RangeError(`a payout's amount is positive, not ${input.amount}`);
  const amount = input.amount ?? input.available;
  if (amount <= 0n || amount > input.available) {
    return refuse({
      code: 'insufficient_available_balance',
      message: `the recipient's available balance in ${input.currency} does not cover the payout`,
      available: input.available,
    });
  }
  return { ok: true, bankAccountId: account.id, amount };
}
