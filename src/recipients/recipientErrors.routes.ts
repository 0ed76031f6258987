/**
 * The recipients' error codes of the catalogue (src/platform/http/errorCatalogue.ts): one that a payment may
 * not name, one that may not be erased yet, one erased for good (docs/concepts.md, "Recipients").
 */
import { RecipientErased, RecipientInUse, RecipientNotPayable } from '../platform/useCaseErrors';
import type { ErrorEntry } from '../platform/http/errorEntry';

const is =
  <C extends abstract new (...args: never[]) => unknown>(cls: C) =>
  (err: unknown): err is InstanceType<C> =>
    err instanceof cls;

export const RECIPIENT_ERRORS = {
  recipient_not_payable: {
    status: 409,
    description:
      'the recipient a payment (or milestone) names may not be paid: its verification is `rejected` (`details.field` names the field, `details.recipient` the recipient)',
    example: {
      message: 'recipient: recipient rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M is rejected; no payment may name it',
      details: { field: 'recipient', recipient: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M', status: 'rejected' },
    },
    from: {
      matches: is(RecipientNotPayable),
      details: (err: RecipientNotPayable) => ({ field: err.field, recipient: err.recipientId, status: err.status }),
    },
  },
  recipient_in_use: {
    status: 409,
    description:
      'the recipient cannot be erased yet: money is still pending, available or in transit for it, a paid payout of its is still inside its return window (a bank may return it, and the money would be owed to it again: `details.payout` and `details.return_window_closes_at`, after which it can be erased), or a payment not yet released, cancelled or refunded names it (`details.reason`: `balance`, `return_window` or `open_payment`)',
    example: {
      message:
        'payout po_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M paid recipient rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M and its bank may return it until 2027-03-06T09:30:00.000Z (the money would then be owed to this recipient again); it can be erased after then',
      details: {
        recipient: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M',
        reason: 'return_window',
        payout: 'po_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M',
        return_window_closes_at: '2027-03-06T09:30:00.000Z',
      },
    },
    from: {
      matches: is(RecipientInUse),
      details: (err: RecipientInUse) => ({
        recipient: err.recipientId,
        reason: err.reason,
        ...(err.returnWindow
          ? { payout: err.returnWindow.payoutId, return_window_closes_at: err.returnWindow.closesAt.toISOString() }
          : {}),
      }),
    },
  },
  recipient_erased: {
    status: 409,
    description:
      'the recipient was erased (`POST /recipients/:id/redact`): it takes no more changes, verification reports, bank accounts, payments or payouts; create a new recipient (`details.erased_at` says when, `details.field` the field that named it, when one did)',
    example: {
      message:
        'recipient: recipient rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M was erased at 2026-12-01T09:30:00.000Z; it takes no more changes, bank accounts, payments or payouts: create a new recipient',
      details: { recipient: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M', erased_at: '2026-12-01T09:30:00.000Z', field: 'recipient' },
    },
    from: {
      matches: is(RecipientErased),
      details: (err: RecipientErased) => ({
        recipient: err.recipientId,
        erased_at: err.erasedAt,
        ...(err.field ? { field: err.field } : {}),
      }),
    },
  },
} as const satisfies Record<string, ErrorEntry>;
