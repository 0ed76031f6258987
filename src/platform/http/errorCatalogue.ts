/**
 * The one catalogue of API errors: each code's HTTP status, what it means, an example and (for
 * errors thrown below the API) the error class it answers. `toApiError`, the error schema's code
 * enum and the OpenAPI document's error texts and examples all come from here.
 */
import type { ErrorEntry } from './errorEntry';
import { RECIPIENT_ERRORS } from '../../recipients/recipientErrors.routes';

export type { ErrorEntry };
import {
  DeliveryInProgress,
  DependencyUnavailable,
  DisputeOutOfTurn,
  Forbidden,
  IdempotencyConflict,
  InvalidInput,
  InvalidTransition,
  NotFound,
  PayoutRefused,
  QuotaExceeded,
  RateLimited,
  BankAccountInUse,
  FundedByBankTransfer,
  BankCreditNotReturnable,
  BankCreditNotUnapplied,
  Unauthenticated,
  isUnavailable,
} from '../useCaseErrors';

const is =
  <C extends abstract new (...args: never[]) => unknown>(cls: C) =>
  (err: unknown): err is InstanceType<C> =>
    err instanceof cls;

/** A quota's refusal: which limit, and the setting that raises it. */
const quota = (name: QuotaExceeded['quota']) => ({
  matches: (err: unknown) => err instanceof QuotaExceeded && err.quota === name,
  details: (err: QuotaExceeded) => ({ limit: err.limit, setting: err.setting }),
});

/** A payout's refusal: its details are the use case's. */
const payoutRefusal = (code: PayoutRefused['code']) => ({
  matches: (err: unknown) => err instanceof PayoutRefused && err.code === code,
  details: (err: PayoutRefused) => err.details,
});

export const ERRORS = {
  invalid_request: {
    status: 400,
    description: 'the request is malformed; `details` names every bad field',
    example: { message: 'amount: must be positive', details: [{ field: 'amount', message: 'must be positive' }] },
    from: { matches: is(InvalidInput), details: (err: InvalidInput) => err.details },
  },
  unauthorized: {
    status: 401,
    description: 'missing or wrong credentials',
    example: { message: 'invalid API key' },
    from: { matches: is(Unauthenticated), headers: () => ({ 'WWW-Authenticate': 'Bearer' }) },
    headers: ['WWW-Authenticate'],
  },
  forbidden: {
    status: 403,
    description:
      'a credential may not do this: create keys of the other mode, or send bank files with a test key (they are about live payouts)',
    example: { message: 'a test-mode credential can only create test keys' },
    from: { matches: is(Forbidden) },
  },
  not_found: {
    status: 404,
    description:
      "no such resource (also for resources of another account or mode); for an id the caller's account holds in the other mode, the message says so (nothing of the object is shown)",
    example: { message: 'no such payment' },
    from: { matches: is(NotFound) },
  },
  method_not_allowed: {
    status: 405,
    description: 'the path exists but not with this method',
    example: { message: 'method not allowed on this path' },
  },
  invalid_transition: {
    status: 409,
    description:
      "the action is not allowed from the payment's current status, or its milestone's on a milestone's route (`details.status` names it, `details.allowed_actions` lists the actions allowed now, none when it is final: of a payment with milestones, those some milestone may take; on a milestone's route, that milestone's actions, and `details.milestone_id` names it)",
    example: {
      message: 'cannot release a payment whose status is in_custody (allowed from in_custody: approve, refund, dispute)',
      details: { status: 'in_custody', allowed_actions: ['approve', 'refund', 'dispute'] },
    },
    from: {
      matches: is(InvalidTransition),
      details: (err: InvalidTransition) => ({
        status: err.status,
        allowed_actions: err.allowedActions,
        ...(err.milestoneId === undefined ? {} : { milestone_id: err.milestoneId }),
      }),
    },
  },
  funded_by_bank_transfer: {
    status: 409,
    description:
      'the payment is funded by bank transfer (`funding: "bank_transfer"`): it is deposited when the bank books the transfer carrying its reference, never by POST …/deposit (docs/bank.md)',
    example: {
      message:
        "payment pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F is funded by bank transfer: it is deposited when the bank books the payer's transfer with its reference, not by POST …/deposit",
      details: { payment: 'pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F' },
    },
    from: { matches: is(FundedByBankTransfer), details: (err: FundedByBankTransfer) => ({ payment: err.paymentId }) },
  },
  bank_credit_not_unapplied: {
    status: 409,
    description: 'the bank credit was applied or returned already (`details.status`): only an unapplied credit can be (docs/bank.md)',
    example: {
      message: 'bank credit bc_01JDZ6R0A1B2C3D4E5F6G7H8J9 is applied: only an unapplied credit can be applied or returned',
      details: { bank_credit: 'bc_01JDZ6R0A1B2C3D4E5F6G7H8J9', status: 'applied' },
    },
    from: {
      matches: is(BankCreditNotUnapplied),
      details: (err: BankCreditNotUnapplied) => ({ bank_credit: err.creditId, status: err.status }),
    },
  },
  bank_credit_not_returnable: {
    status: 409,
    description:
      'the bank\'s entry named no debtor account to send the credit back to, or a name outside the SEPA character set: it cannot be returned by file; apply it, or return it by hand at the bank (docs/bank.md, "Returns")',
    example: {
      message:
        'bank credit bc_01JDZ6R0A1B2C3D4E5F6G7H8J9 cannot be returned: the entry named no debtor account (or a name the bank would refuse) to send it back to',
      details: { bank_credit: 'bc_01JDZ6R0A1B2C3D4E5F6G7H8J9' },
    },
    from: { matches: is(BankCreditNotReturnable), details: (err: BankCreditNotReturnable) => ({ bank_credit: err.creditId }) },
  },
  dispute_out_of_turn: {
    status: 409,
    description:
      "a dispute's action its status or the party does not allow (`details.dispute_status` names the dispute's status, `details.dispute_id` the dispute): evidence and offers while it is open, an offer answered by the other party only, a withdrawal by the party that opened it; a party's refusal names who may take the action (docs/concepts.md)",
    example: {
      message: 'cannot accept an offer in a dispute whose status is resolved',
      details: { dispute_status: 'resolved', dispute_id: 'dp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2G' },
    },
    from: {
      matches: is(DisputeOutOfTurn),
      details: (err: DisputeOutOfTurn) => ({
        dispute_status: err.disputeStatus,
        dispute_id: err.disputeId,
        ...(err.milestoneId === undefined ? {} : { milestone_id: err.milestoneId }),
      }),
    },
  },
  delivery_in_progress: {
    status: 409,
    description: 'the delivery has a series of attempts running (`details.series` names it); resend it once that series has ended',
    example: {
      message: 'delivery dlv_01JQ8Z3N4X5Y6Z7A8B9C0D1E2K has a series of attempts running (original); resend it once that series has ended',
      details: { delivery_id: 'dlv_01JQ8Z3N4X5Y6Z7A8B9C0D1E2K', series: 'original' },
    },
    from: {
      matches: is(DeliveryInProgress),
      details: (err: DeliveryInProgress) => ({ delivery_id: err.deliveryId, series: err.series }),
    },
  },
  idempotency_conflict: {
    status: 409,
    description: 'the Idempotency-Key was used with a different request, is still in progress, or created a secret',
    example: { message: 'this Idempotency-Key was used with a different request' },
    from: { matches: is(IdempotencyConflict) },
  },
  webhook_limit_reached: {
    status: 409,
    description:
      'the account and mode already have MAX_WEBHOOKS_PER_ACCOUNT (default 16) webhook configurations; delete one first (`details.limit` says how many)',
    example: {
      message: 'this account has 16 test webhook configurations, the most it may have; delete one first',
      details: { limit: 16, setting: 'MAX_WEBHOOKS_PER_ACCOUNT' },
    },
    from: quota('webhooks'),
  },
  api_key_limit_reached: {
    status: 409,
    description:
      'the account and mode already have MAX_API_KEYS_PER_ACCOUNT (default 20) active API keys; revoke one first (`details.limit` says how many)',
    example: {
      message: 'this account has 20 active test API keys, the most it may have; revoke one first',
      details: { limit: 20, setting: 'MAX_API_KEYS_PER_ACCOUNT' },
    },
    from: quota('api_keys'),
  },
  open_payment_limit_reached: {
    status: 409,
    description:
      'the account and mode already have MAX_OPEN_PAYMENTS_LIVE (default 1,000,000) or MAX_OPEN_PAYMENTS_TEST (default 10,000) open payments, those not released, cancelled or refunded; wait for one to end (`details.limit` says how many, `details.setting` which setting)',
    example: {
      message:
        'this account has 10000 open test payments, the most it may have (MAX_OPEN_PAYMENTS_TEST); wait for one to be released, cancelled or refunded',
      details: { limit: 10000, setting: 'MAX_OPEN_PAYMENTS_TEST' },
    },
    from: quota('open_payments'),
  },
  bank_account_in_use: {
    status: 409,
    description:
      'the bank account cannot be deleted yet: a live payout waits to go out to it in a credit transfer file (`details.payout`); once the file is written, or the payout canceled, it can',
    example: {
      message:
        'bank account ba_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M is the one payout po_01JQ8Z3N4X5Y6Z7A8B9C0D1E2N waits to be paid to; it can be deleted once that payout has left in a file, or is canceled',
      details: { bank_account: 'ba_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M', payout: 'po_01JQ8Z3N4X5Y6Z7A8B9C0D1E2N' },
    },
    from: {
      matches: is(BankAccountInUse),
      details: (err: BankAccountInUse) => ({ bank_account: err.bankAccountId, payout: err.payoutId }),
    },
  },
  ...RECIPIENT_ERRORS,
  payouts_not_enabled: {
    status: 409,
    description:
      "the recipient's payouts are not enabled: its verification is not `verified`, or requirements are past due (docs/payouts.md)",
    example: {
      message:
        "the recipient's payouts are not enabled: its verification is pending; they are enabled once it is verified with nothing past due, as reported by POST /api/v1/recipients/rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M/verification",
      details: {
        recipient: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M',
        currency: 'EUR',
        verification_status: 'pending',
        past_due: [],
        route: 'POST /api/v1/recipients/rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M/verification',
      },
    },
    from: payoutRefusal('payouts_not_enabled'),
  },
  no_payable_bank_account: {
    status: 409,
    description:
      "the bank account named, or the recipient's default in the currency, cannot take the payout: there is none, it is `errored` or `disabled`, or it receives another currency",
    example: {
      message: 'no payable bank account: the recipient has no default bank account in EUR',
      details: { recipient: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M', currency: 'EUR' },
    },
    from: payoutRefusal('no_payable_bank_account'),
  },
  insufficient_available_balance: {
    status: 409,
    description:
      "the recipient's `available` balance in the currency does not cover the payout (`details.available`, major units): of two payouts racing for the same money, one is created",
    example: {
      message: "the recipient's available balance in EUR does not cover the payout",
      details: { recipient: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M', currency: 'EUR', available: 4.5 },
    },
    from: payoutRefusal('insufficient_available_balance'),
  },
  payout_not_pending: {
    status: 409,
    description: 'a payout is canceled only while `pending` (`details.status` names its status)',
    example: {
      message: 'cannot cancel a payout whose status is in_transit',
      details: { status: 'in_transit' },
    },
    from: payoutRefusal('payout_not_pending'),
  },
  test_send_limit_reached: {
    status: 409,
    description:
      "this webhook configuration was sent MAX_TEST_SENDS_PER_WEBHOOK_HOUR (default 60) test events in this clock hour (UTC), or the account's configurations of this mode MAX_TEST_SENDS_PER_ACCOUNT_HOUR (default 60) together, deleted ones included; send again in the next hour (`details.limit` says how many, `details.setting` which limit)",
    example: {
      message:
        'webhook wh_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F was sent 60 test events this hour, the most it may be (MAX_TEST_SENDS_PER_WEBHOOK_HOUR); send again next hour',
      details: { limit: 60, setting: 'MAX_TEST_SENDS_PER_WEBHOOK_HOUR' },
    },
    from: quota('test_sends'),
  },
  route_retired: {
    status: 410,
    description: 'the route is retired; the message says what took its place (`POST /api/v1/bank_files`: the bank inbox, docs/bank.md)',
    example: {
      message: "bank files are the operator's, taken from the bank inbox (BANK_INBOX_DIR), not posted with an API key: see docs/bank.md",
      details: { replaced_by: 'BANK_INBOX_DIR' },
    },
  },
  payload_too_large: {
    status: 413,
    description: 'the body is larger than 100 KB',
    example: { message: 'request bodies are limited to 100 KB' },
  },
  unsupported_media_type: {
    status: 415,
    description: 'a body that is not Content-Type: application/json',
    example: { message: 'send bodies as Content-Type: application/json' },
  },
  rate_limited: {
    status: 429,
    description: 'too many requests or failed attempts; retry after Retry-After seconds',
    example: { message: 'too many requests; retry in 1 s' },
    from: { matches: is(RateLimited), headers: (err: RateLimited) => ({ 'Retry-After': String(err.retryAfterSeconds) }) },
    headers: ['Retry-After'],
  },
  request_header_fields_too_large: {
    status: 431,
    description: 'request headers larger than 16 KB',
    example: { message: 'request headers are limited to 16 KB' },
  },
  internal_error: {
    status: 500,
    description: 'a failure on our side',
    example: { message: 'something went wrong on our side' },
  },
  service_unavailable: {
    status: 503,
    description: 'Temporal or PostgreSQL is unreachable; retry after Retry-After seconds',
    example: { message: new DependencyUnavailable(undefined).message },
    from: { matches: isUnavailable, headers: () => ({ 'Retry-After': '1' }), message: new DependencyUnavailable(undefined).message },
    headers: ['Retry-After'],
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

const EXAMPLE_REQUEST_ID = 'req_5f0c9a3e2b7d4c1a8e6f0b9d2c4a7e15';

/** The example answer for an error code, in the error format. */
export function errorExample(code: ErrorCode): unknown {
  return { error: { code, ...ERRORS[code].example }, request_id: EXAMPLE_REQUEST_ID };
}
