/**
 * Errors by meaning, thrown by the use cases; `src/platform/http/httpErrors.ts` maps them to HTTP in one place.
 */
import { WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ServiceError } from '@temporalio/client';
import { type ClientAction, type PaymentStatus } from '../payments/paymentTypes.rules';
import { allowedActions, isTerminal } from '../payments/payment.rules';

class DomainError extends Error {}

/** No such resource for this account and mode (also: another account's). */
export class NotFound extends DomainError {
  constructor(
    readonly what: string,
    message = `no such ${what}`,
  ) {
    super(message);
  }
}

/**
 * The action is not allowed from the payment's current status, or from its milestone's
 * (`milestoneId`); the message names the next steps there are: the workflow's when it refused (of
 * a payment with milestones, the actions some milestone may take), else the status's.
 */
export class InvalidTransition extends DomainError {
  readonly allowedActions: ClientAction[];
  readonly milestoneId?: string;
  constructor(
    readonly status: PaymentStatus,
    message: string,
    next: { allowed?: ClientAction[]; milestoneId?: string } = {},
  ) {
    const of = next.milestoneId === undefined ? 'payment' : 'milestone';
    const allowed = next.allowed ?? allowedActions(status, of);
    // A milestone awaiting the deposit has no action of its own, and is not final.
    const none = isTerminal(status) ? `${status} is final` : `no ${of} action is allowed from ${status}`;
    super(`${message} (${allowed.length ? `allowed from ${status}: ${allowed.join(', ')}` : none})`);
    this.allowedActions = allowed;
    if (next.milestoneId !== undefined) this.milestoneId = next.milestoneId;
  }
}

/** A party's dispute action out of turn: the dispute's status (or the party) does not allow it. */
export class DisputeOutOfTurn extends DomainError {
  constructor(
    readonly disputeStatus: string,
    readonly disputeId: string,
    message: string,
    readonly milestoneId?: string,
  ) {
    super(message);
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** A delivery already has a series of attempts running (`series` names it): one at a time. */
export class DeliveryInProgress extends DomainError {
  constructor(
    readonly deliveryId: string,
    readonly series: string,
  ) {
    super(`delivery ${deliveryId} has a series of attempts running (${series}); resend it once that series has ended`);
  }
}

/** Input the rules refuse, field by field. */
export class InvalidInput extends DomainError {
  constructor(readonly details: FieldProblem[]) {
    super(details.map((d) => `${d.field}: ${d.message}`).join('; '));
  }
}

/** An account and mode at one of its quotas (docs/security.md): nothing was created. */
export class QuotaExceeded extends DomainError {
  constructor(
    readonly quota: 'webhooks' | 'api_keys' | 'open_payments' | 'test_sends',
    readonly limit: number,
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

/** A recipient money may not be released to (`rejected`): named by the field that named it. */
export class RecipientNotPayable extends DomainError {
  constructor(
    readonly recipientId: string,
    readonly field: string,
    readonly status: string,
  ) {
    super(`${field}: recipient ${recipientId} is ${status}; no payment may name it`);
  }
}

/**
 * A write to a recipient that was erased (docs/concepts.md, "Recipients"): its personal data is gone
 * for good, so it takes no new e-mail, name, metadata, verification, bank account, payment or payout.
 */
export class RecipientErased extends DomainError {
  constructor(
    readonly recipientId: string,
    readonly erasedAt: string,
    readonly field?: string,
  ) {
    super(
      `${field ? `${field}: ` : ''}recipient ${recipientId} was erased at ${erasedAt}; it takes no more changes, bank accounts, payments or payouts: create a new recipient`,
    );
  }
}

/** A recipient that may not be erased yet: money is still its (pending, available, in transit) or an open payment names it. */
/** A bank account a live payout waits to go out to (in no file yet, or in one not yet written): it cannot be deleted (docs/bank.md). */
export class BankAccountInUse extends DomainError {
  constructor(
    readonly bankAccountId: string,
    readonly payoutId: string,
  ) {
    super(
      `bank account ${bankAccountId} is the one payout ${payoutId} waits to be paid to; it can be deleted once that payout has left in a file, or is canceled`,
    );
  }
}

export class RecipientInUse extends DomainError {
  constructor(
    readonly recipientId: string,
    readonly reason: 'balance' | 'open_payment' | 'return_window',
    /** `return_window`: the paid payout a bank may still return, and when its window closes. */
    readonly returnWindow?: { payoutId: string; closesAt: Date },
  ) {
    super(
      reason === 'balance'
        ? `recipient ${recipientId} still has money pending, available or in transit; it can be erased once none is left`
        : reason === 'return_window'
          ? `payout ${returnWindow?.payoutId} paid recipient ${recipientId} and its bank may return it until ${returnWindow?.closesAt.toISOString()} (the money would then be owed to this recipient again); it can be erased after then`
          : `an open payment names recipient ${recipientId}; it can be erased once every such payment is released, cancelled or refunded`,
    );
  }
}

/**
 * A payout the rules refuse (docs/payouts.md, "Creating a payout"): payouts not enabled, no payable
 * bank account, not enough available (`available` in major units), or a cancel once it left `pending`.
 */
export class PayoutRefused extends DomainError {
  constructor(
    readonly code: 'payouts_not_enabled' | 'no_payable_bank_account' | 'insufficient_available_balance' | 'payout_not_pending',
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** No credential, or one that is wrong, revoked or expired. */
/**
 * A deposit reported for a payment funded by bank transfer: its deposit is the bank's credit, matched
 * by its reference (docs/bank.md, "Funding by bank transfer"), never a client's word.
 */
export class FundedByBankTransfer extends DomainError {
  constructor(readonly paymentId: string) {
    super(
      `payment ${paymentId} is funded by bank transfer: it is deposited when the bank books the payer's transfer with its reference, not by POST …/deposit`,
    );
  }
}

/** A bank credit that is no longer unapplied (applied, or returned): it can be neither applied nor returned again (docs/bank.md). */
/** A live credit whose entry named no account to send it back to (or a name the bank would refuse): it cannot be returned by file (docs/bank.md, "Returns"). */
export class BankCreditNotReturnable extends DomainError {
  constructor(
    readonly creditId: string,
    why: string,
  ) {
    super(`bank credit ${creditId} cannot be returned: ${why}`);
  }
}

export class BankCreditNotUnapplied extends DomainError {
  constructor(
    readonly creditId: string,
    readonly status: string,
  ) {
    super(`bank credit ${creditId} is ${status}: only an unapplied credit can be applied or returned`);
  }
}

export class Unauthenticated extends DomainError {}

/** A valid credential that may not do this (e.g. a test key minting a live key). */
export class Forbidden extends DomainError {}

/** An Idempotency-Key reused for another request, still in progress, or whose answer held a secret. */
export class IdempotencyConflict extends DomainError {}

/** Too many requests or failed attempts: retry after the given number of seconds. */
export class RateLimited extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many requests; retry in ${retryAfterSeconds} s`);
  }
}

/** Temporal or PostgreSQL could not be reached in time: the request may be retried. */
export class DependencyUnavailable extends DomainError {
  constructor(readonly cause: unknown) {
    super('a service this request needs is unavailable; retry later');
  }
}

/** A workflow run that is gone or closed: a timer (or an earlier attempt) made it final. */
export function isClosedRun(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || (err instanceof ServiceError && /already completed/i.test(err.message));
}

const UNAVAILABLE_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P03', '08006', '08001'];

/** Errors that mean a dependency (Temporal, PostgreSQL) is out of reach, not that the request is bad. */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof DependencyUnavailable || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined;
  if (!e) return false;
  if (err instanceof ServiceError) {
    const cause = e.cause as { code?: number } | undefined;
    // gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4).
    if (cause?.code === 14 || cause?.code === 4 || /UNAVAILABLE|DEADLINE_EXCEEDED|connect/i.test(String(e.message))) return true;
  }
  if (e.name === 'TransportError') return true;
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.includes(e.code)) return true;
  if (typeof e.message === 'string' && /Knex: Timeout acquiring a connection|Connection terminated/.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== err && isUnavailable(e.cause);
}

/** A page of a list, or the 400 for a cursor naming no item the caller can see (`notOurs` says what it should name). */
export function pageOrRefuse<P extends object>(page: P, notOurs: string): Exclude<P, { cursorNotFound: string }> {
  if ('cursorNotFound' in page) throw new InvalidInput([{ field: String(page.cursorNotFound), message: notOurs }]);
  return page as Exclude<P, { cursorNotFound: string }>;
}
