/** The OpenAPI document's own prose: its title, version and changelog, and what each tag holds. */

export const INFO = {
  title: 'Payment Custody Service',
  version: '1.5.0',
  description: [
    'Payments held in custody and released, cancelled or refunded. Every error is `{"error":{code,message,details?},"request_id"}`; every response carries `X-Request-Id`. Amounts are JSON numbers in major units, never more fractional digits than the currency has.',
    '',
    '## Changelog',
    '',
    '- **1.5.0**: additive. `bank_credit.received`, `bank_credit.applied` and `bank_credit.returned` (docs/webhooks.md, "Bank credit events"): a bank credit of your account as a webhook and in `GET /api/v1/events`, where an `Event` has `bank_credit_id` and its `data` is the `BankCredit` (the payer as `debtor_last4` only).',
    "- **1.4.0**: one event outbox for every object. `GET /api/v1/events` lists payouts' and recipients' events too (`type` takes every webhook event's name): an `Event` has `payment_id`, `payout_id` or `recipient_id`, whichever object it is about (`payment_id` is absent on the others), and its `data` is that payment, payout or recipient (its `object` says which).",
    '- **1.3.0**: additive. `POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend` while the series waits between attempts runs its next attempt now (same series, numbered after the last); its 202 carries `attempt`, the number of the attempt that runs. 409 `delivery_in_progress` only while an attempt is in flight.',
    '- **1.2.0**: milestones, additive (docs/concepts.md, "Deals paid in stages"). `POST /api/v1/payments` takes optional `milestones` (1 to 50 parts of the amount, summing to it); every payment shows `milestones` (one of the whole amount unless created with them). History entries and ledger entries carry `milestone_id`. New routes `POST /api/v1/payments/{id}/milestones/{ms}/approve`, `release`, `refund`, `dispute` and `resolve`; new events `payment.milestone_approved`, `payment.milestone_released` and `payment.milestone_disputed` (payments created with milestones only), whose envelope adds `milestone`. A payment-level partial refund or split while several milestones hold money answers 409 `invalid_transition`. A payment-level action is allowed while some milestone may take it, acting on each that may. A 409 `invalid_transition` on a milestone\'s route lists that milestone\'s actions in `details.allowed_actions` and names it in `details.milestone_id`.',
    "- **1.1.0**: `released` means one amount everywhere, gross of fees, as a payment's `amount_released`. In `GET /api/v1/balance`, `released` was net of fees and is now gross (= `released_net` + `fees`); the net amount is the new `released_net`. `deposited = held + released + refunded`. A 409 `invalid_transition` adds `details.allowed_actions`. New: `POST /api/v1/payments/{id}/redact` (erasure of a finished payment's personal data); quotas answer 409 `webhook_limit_reached` and `api_key_limit_reached`; a resend while the delivery's series runs answers 409 `delivery_in_progress`; `recover` queues at most `RECOVER_MAX_DELIVERIES` and answers `queued` and `has_more`; a history entry's `event` may be null (the redaction); `GET /api/v1/audit/public_key` answers 404 until a worker has published its key. Paths match exactly: `/API/v1`, a trailing or doubled slash are 404. The `payment_id` filter of `GET /api/v1/events` and `GET /api/v1/ledger_entries` takes any payment id, as the delivery log's does.",
    '- **1.1.0**: a split (`resolve` with `resolution: "split"`) emits `payment.partially_refunded` for its refunded part (the payment as that partial refund leaves it), then `payment.released`, both with the split\'s `sequence`: subscribers to refund events see it, and `GET /api/v1/events` lists both.',
    '- **1.0.0**: first version.',
  ].join('\n'),
  license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
};

export const TAGS: Record<string, string> = {
  Auth: 'Bearer tokens for people (API keys need none)',
  Payments: 'Payments and their transitions',
  Events: 'Every event a payment emitted, kept at least 30 days',
  Ledger: 'Double-entry ledger entries and balances (docs/money.md)',
  Audit: 'The custody trail: signed tree heads and proofs (docs/audit.md)',
  Webhooks: 'Webhook configurations and their delivery logs',
  Recipients: 'Who payments are released to: their verification and balances (docs/concepts.md)',
  Payouts: 'Released money paid out to a recipient’s bank account (docs/payouts.md)',
  'Test helpers': 'Test-mode only: move a payment’s or a payout’s clock',
  'API keys': 'Keys of the caller’s account and mode',
  Operations: 'Liveness and readiness probes',
};
