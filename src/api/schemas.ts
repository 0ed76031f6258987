/**
 * One zod schema per request and response. A request's validates it and types what its handler
 * gets; the OpenAPI document is written from all of them, so the reference cannot drift from the
 * validation. Answers are built by the views (src/domain/*View.ts), not validated at run time.
 */
import { z } from 'zod';
import { PAYMENT_EVENTS, PAYMENT_STATUSES, RESOLUTIONS, type PaymentEvent } from '../domain/payment';
import { PaymentViewSchema, SamplePaymentViewSchema } from '../domain/paymentView';
import { ENTRY_TYPES } from '../domain/ledger';
import { BalanceViewSchema, LedgerEntryViewSchema } from '../domain/ledgerView';
import { ApiKeyViewSchema } from '../domain/apiKeyView';
import { DELIVERY_STATUSES, DeliveryAttemptViewSchema, DeliveryStatusSchema, DeliveryViewSchema } from '../domain/deliveryView';
import { WebhookListItemViewSchema, WebhookSecretViewSchema, WebhookViewSchema } from '../domain/webhookView';
import { isCurrency, toMinor } from '../domain/money';
import type { NewPayment } from '../services/payments';
import { ERROR_CODES } from './errorCatalogue';

/**
 * Text a client sends, as PostgreSQL can store and every client can read back: well-formed Unicode
 * (no lone surrogate, which `.slice()` leaves of a cut emoji and PostgreSQL refuses), and no NUL or
 * other control characters (C0 but tab and newlines, DEL, C1).
 */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.isWellFormed(), 'must be well-formed Unicode (it contains a lone surrogate)')
    .regex(/^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/, 'must not contain control characters');
const email = z.email({ message: 'must be a valid e-mail address' }).max(254);
const reason = text(500).nullable().optional().describe('Why; recorded in the payment history');

export const CreatePaymentRequest = z
  .object({
    amount: z
      .number({ message: 'amount must be a number in major units, e.g. 10.50' })
      .describe('Major units; no more fractional digits than the currency has'),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'currency must be a three-letter ISO 4217 code')
      .describe('ISO 4217 code, e.g. USD'),
    platform_fee: z
      .number({ message: 'platform_fee must be a number in major units, e.g. 5.00' })
      .optional()
      .describe("The platform's commission in major units, 0 to amount (default 0); taken pro rata from what the recipient receives"),
    payer_email: email,
    recipient_email: email,
    description: text(1000).nullable().optional(),
    metadata: z
      .record(text(40).min(1), text(500))
      .refine((m) => Object.keys(m).length <= 20, 'metadata can have at most 20 keys')
      .optional()
      .describe('Up to 20 string values'),
    deposit_deadline_seconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 24 * 3600)
      .optional()
      .describe('Default 7 days'),
    auto_release_after_seconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 24 * 3600)
      .optional()
      .describe('Release this long after approval, unless disputed or refunded'),
  })
  .strict();
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequest>;

const metadataSchema = CreatePaymentRequest.shape.metadata.unwrap();
/**
 * Metadata as `CreatePaymentRequest` checks it, and no "__proto__" key: JSON.parse keeps one, but
 * zod (and any object built from it) drops it without a word, so it is looked for in the input.
 */
const metadataWithoutProto = z.unknown().transform((m, ctx) => {
  const parsed = metadataSchema.safeParse(m);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: m } as (typeof ctx.issues)[number]);
  if (typeof m === 'object' && m !== null && Object.hasOwn(m, '__proto__'))
    ctx.issues.push({ code: 'custom', path: ['__proto__'], message: '"__proto__" cannot be a metadata key', input: m });
  return parsed.data as z.output<typeof metadataSchema>;
});

/**
 * The create body as the use case takes it: the schema, plus the rules JSON Schema cannot express
 * (a currency ISO 4217 knows, the currency's precision, the maximum `maxAmount`, a fee within the
 * amount, distinct parties, no `__proto__` key). They run even when other fields failed, so that
 * every problem is reported at once, each naming its field; a rule waits for the fields it reads.
 */
export function createPaymentBody(maxAmount: number) {
  return CreatePaymentRequest.extend({ metadata: metadataWithoutProto.optional() })
    .superRefine(
      (value, ctx) => {
        const failed = new Set(ctx.issues.map((i) => (i.path ?? []).join('.')));
        // The input itself when it is no object at all: its fields then read as missing.
        const input: unknown = value;
        const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
        const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
        const currency = typeof raw.currency === 'string' ? raw.currency.toUpperCase() : '';
        if (!failed.has('currency') && !isCurrency(currency)) {
          issue('currency', `${String(raw.currency)} is not an ISO 4217 currency code`);
        } else if (!failed.has('currency') && !failed.has('amount')) {
          const amount = toMinor(raw.amount as number, currency);
          if (!amount.ok) issue('amount', amount.message);
          else {
            const max = toMinor(maxAmount, currency);
            if (max.ok && amount.minor > max.minor) issue('amount', `amount must not exceed ${maxAmount} ${currency}`);
          }
          if (raw.platform_fee !== undefined && !failed.has('platform_fee')) {
            const fee = toMinor(raw.platform_fee as number, currency, { field: 'platform_fee', allowZero: true });
            if (!fee.ok) issue('platform_fee', fee.message);
            else if (amount.ok && fee.minor > amount.minor) issue('platform_fee', 'platform_fee must not exceed amount');
          }
        }
        if (
          !failed.has('payer_email') &&
          !failed.has('recipient_email') &&
          String(raw.payer_email).toLowerCase() === String(raw.recipient_email).toLowerCase()
        ) {
          issue('recipient_email', 'recipient_email must differ from payer_email');
        }
      },
      // Run despite earlier issues (a wrong type included): every problem at once.
      { when: () => true },
    )
    .transform((body): NewPayment => {
      // Valid by now: the rules above refused what these conversions cannot take.
      const currency = body.currency.toUpperCase();
      const minor = (amount: number, field?: string) => {
        const parsed = toMinor(amount, currency, { field, allowZero: field === 'platform_fee' });
        if (!parsed.ok) throw new Error(parsed.message);
        return parsed.minor;
      };
      return {
        amountMinor: minor(body.amount),
        platformFeeMinor: body.platform_fee === undefined ? 0n : minor(body.platform_fee, 'platform_fee'),
        currency,
        payerEmail: body.payer_email,
        recipientEmail: body.recipient_email,
        description: body.description,
        metadata: body.metadata,
        depositDeadlineSeconds: body.deposit_deadline_seconds,
        autoReleaseAfterSeconds: body.auto_release_after_seconds,
      };
    });
}

export const TransitionRequest = z.object({ reason }).strict();
const partAmount = (field: string, what: string) =>
  z
    .number({ message: `${field} must be a number in major units, e.g. 20.00` })
    .describe(`${what}, in major units; no more fractional digits than the currency has`);
export const RefundRequest = z
  .object({ amount: partAmount('amount', 'How much of what is held to refund (default: all of it)').optional(), reason })
  .strict();
export const ResolveRequest = z
  .object({
    resolution: z.enum(RESOLUTIONS, { message: 'resolution must be "release", "refund" or "split"' }),
    refund_amount: partAmount(
      'refund_amount',
      'For split: refunded to the payer (0 < refund_amount < amount_held); the rest is released',
    ).optional(),
    reason,
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.resolution === 'split' && body.refund_amount === undefined) {
      ctx.addIssue({ code: 'custom', path: ['refund_amount'], message: 'refund_amount is required for the split resolution' });
    }
    if (body.resolution !== 'split' && body.refund_amount !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['refund_amount'], message: 'refund_amount is only for the split resolution' });
    }
  });

export const AdvanceClockRequest = z
  .object({
    seconds: z
      .number()
      .int()
      .min(1)
      .max(366 * 24 * 3600)
      .describe('How far to move this payment’s clock forward'),
  })
  .strict();

interface Cursors {
  starting_after?: string;
  ending_before?: string;
}

/** Every list: newest first, `limit`, and a cursor either way (not both). */
const listQuery = <S extends z.ZodRawShape>(idPrefix: string, what: string, filters: S) =>
  z
    .strictObject({
      limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1 to 100 (default 20)'),
      starting_after: z
        .string()
        .regex(new RegExp(`^${idPrefix}_[0-9A-Za-z]{1,64}$`), `must be ${what} id`)
        .optional()
        .describe(`${what} id: the page after it (older items)`),
      ending_before: z
        .string()
        .regex(new RegExp(`^${idPrefix}_[0-9A-Za-z]{1,64}$`), `must be ${what} id`)
        .optional()
        .describe(`${what} id: the page before it (newer items)`),
      created_gte: z.iso.datetime({ offset: true }).optional().describe('Only items created at or after this ISO 8601 time'),
      created_lte: z.iso.datetime({ offset: true }).optional().describe('Only items created at or before this ISO 8601 time'),
      ...filters,
    })
    .refine((q) => !((q as Cursors).starting_after && (q as Cursors).ending_before), {
      message: 'use starting_after or ending_before, not both',
      path: ['ending_before'],
    });

/** A list query's cursors, size and created range, as the repositories take them. */
export function pageRequestOf(q: {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  created_gte?: string;
  created_lte?: string;
}) {
  return {
    limit: q.limit,
    startingAfter: q.starting_after,
    endingBefore: q.ending_before,
    createdGte: q.created_gte ? new Date(q.created_gte) : undefined,
    createdLte: q.created_lte ? new Date(q.created_lte) : undefined,
  };
}

export const ListPaymentsQuery = listQuery('pay', 'A payment', {
  status: z.enum(PAYMENT_STATUSES).optional().describe('Only payments in this status'),
});

export const ListEventsQuery = listQuery('evt', 'An event', {
  payment_id: z
    .string()
    .regex(/^pay_[0-9A-Z]{26}$/, 'must be a payment id')
    .optional()
    .describe("Only this payment's events"),
  type: z.enum(PAYMENT_EVENTS).optional().describe('Only events of this type, e.g. payment.released'),
});

export const ListLedgerEntriesQuery = listQuery('le', 'A ledger entry', {
  payment_id: z
    .string()
    .regex(/^pay_[0-9A-Z]{26}$/, 'must be a payment id')
    .optional()
    .describe("Only this payment's entries"),
  type: z.enum(ENTRY_TYPES).optional().describe('Only entries of this type: deposit, refund, release or split'),
});

export const Payment = PaymentViewSchema;
export const LedgerEntry = LedgerEntryViewSchema;
export const LedgerEntryList = z.object({ object: z.literal('list'), data: z.array(LedgerEntry), has_more: z.boolean() });
export const PaymentLedger = z.object({ object: z.literal('list'), data: z.array(LedgerEntry), has_more: z.literal(false) });
export const Balance = BalanceViewSchema;
export const PaymentList = z.object({ object: z.literal('list'), data: z.array(Payment), has_more: z.boolean() });
export const Event = z.object({
  id: z.string().describe('evt_ + 26 characters, the same for every reader'),
  object: z.literal('event'),
  type: z.enum(PAYMENT_EVENTS),
  payment_id: z.string(),
  sequence: z.number().describe("The payment's version: order a payment's events by it"),
  created_at: z.string(),
  data: Payment.describe('The payment as it was right after this event'),
});
export const EventList = z.object({ object: z.literal('list'), data: z.array(Event), has_more: z.boolean() });
export const PaymentHistoryEntry = z.object({
  seq: z.number(),
  action: z.string(),
  from: z.enum(PAYMENT_STATUSES).nullable(),
  to: z.enum(PAYMENT_STATUSES),
  event: z.enum(PAYMENT_EVENTS),
  actor: z.string(),
  reason: z.string().nullable(),
  at: z.string(),
});
export const PaymentHistory = z.object({ object: z.literal('list'), data: z.array(PaymentHistoryEntry), has_more: z.literal(false) });

export const LoginRequest = z.object({ email, password: text(1024).min(1) }).strict();
export const LoginResponse = z.object({ token: z.string(), expires_at: z.string() });

export const CreateApiKeyRequest = z.object({ mode: z.enum(['test', 'live']) }).strict();
export const ApiKey = ApiKeyViewSchema;
export const ApiKeyCreated = ApiKey.extend({ key: z.string().describe('Shown once') });
/** Every key of the mode at once (a handful): `has_more` is always false. */
export const ApiKeyList = z.object({ object: z.literal('list'), data: z.array(ApiKey), has_more: z.literal(false) });

export const ConfigureWebhookRequest = z
  .object({
    url: z.string().min(1).max(2048),
    events: z
      .array(z.enum(PAYMENT_EVENTS, { message: `must be one of ${PAYMENT_EVENTS.join(', ')}` }))
      .min(1, 'events must not be empty')
      .refine((e) => new Set(e).size === e.length, 'events must not repeat a name')
      .optional()
      .describe('Default: all eight'),
  })
  .strict();
export const RotateSecretRequest = z
  .object({
    expire_previous_in_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .default(24 * 3600)
      .describe('How long the previous secret keeps signing beside the new one (default 24 h; 0: stops at once)'),
  })
  .strict();

export const UpdateWebhookRequest = z
  .object({ active: z.boolean().describe('true turns a disabled configuration on again; false turns it off') })
  .strict();

export const RecoverRequest = z
  .object({
    since: z.iso
      .datetime({ offset: true })
      .describe('Resend every delivery created at or after this ISO 8601 time that failed or is still being retried after a failure'),
  })
  .strict();

export const ListDeliveriesQuery = listQuery('dlv', 'A delivery', {
  status: z.enum(DELIVERY_STATUSES).optional().describe('Only deliveries in this status'),
  payment_id: z
    .string()
    .regex(/^pay_[0-9A-Za-z]{1,64}$/, 'must be a payment id')
    .optional()
    .describe("Only this payment's deliveries"),
});

export const Webhook = WebhookViewSchema;
export const WebhookWithSecret = WebhookSecretViewSchema;
export const WebhookConfigured = z.object({ success: z.literal(true), webhook: WebhookWithSecret });
export const WebhookListItem = WebhookListItemViewSchema;
export const WebhookList = z.object({
  object: z.literal('list'),
  data: z.array(WebhookListItem),
  /** Every configuration of the mode at once: always false. */
  has_more: z.literal(false),
});
export const DeliveryStatus = DeliveryStatusSchema;
export const DeliveryAttempt = DeliveryAttemptViewSchema;
export const Delivery = DeliveryViewSchema;
export const WebhookDeliveryList = z.object({ object: z.literal('list'), data: z.array(Delivery), has_more: z.boolean() });
export const WebhookTestSent = z.object({ success: z.literal(true), delivery_id: z.string() });
export const WebhookRecovered = z.object({ success: z.literal(true), delivery_ids: z.array(z.string()) });
export const DeletedResponse = z.object({ id: z.string(), deleted: z.literal(true) });

export const Health = z.object({ status: z.literal('ok') });
const check = z.enum(['ok', 'unavailable']);
export const Readiness = z.object({ status: check, checks: z.object({ postgres: check, temporal: check }) });

export const ErrorResponse = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES).describe('Stable: branch on it (the message is for people)'),
    message: z.string(),
    details: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .or(z.record(z.string(), z.unknown()))
      .optional(),
  }),
  request_id: z.string().describe('The X-Request-Id of the answer: quote it when you ask us about a request'),
});

/** What every webhook delivery's body holds (docs/webhooks.md): one envelope per event name. */
const envelope = <E extends PaymentEvent>(event: E) =>
  z.object({
    event: z.literal(event),
    payment_id: z.string(),
    timestamp: z.string().describe('The time of the transition, ISO 8601 UTC'),
    sequence: z.number().int().describe("The payment's version: ignore an event whose sequence is lower than one you applied"),
    data:
      event === 'payment.test'
        ? SamplePaymentViewSchema.describe('A sample payment whose status is "test"')
        : Payment.describe('The payment as it was right after this event'),
  });
export const WEBHOOK_ENVELOPES = Object.fromEntries(PAYMENT_EVENTS.map((e) => [e, envelope(e)])) as Record<
  PaymentEvent,
  ReturnType<typeof envelope>
>;

// The custody trail (docs/audit.md). Byte strings are standard base64.
const size = (what: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number)
    .describe(what);
export const AuditConsistencyQuery = z
  .object({ from: size('The older tree size'), to: size('The newer tree size, at most the latest signed head’s') })
  .strict();
const base64 = (what: string) => z.string().describe(`${what} (standard base64)`);
export const AuditPublicKey = z.object({ algorithm: z.literal('Ed25519'), public_key: base64('The 32-byte raw Ed25519 public key') });
export const TreeHead = z.object({
  tree_size: z.number().int().describe('Leaves in the tree'),
  root_hash: base64('RFC 9162 Merkle tree hash of the first tree_size leaves'),
  timestamp: z.string().describe('When it was signed (ISO 8601 UTC), exactly as signed'),
  signature: base64('Ed25519 over the UTF-8 bytes of {"root_hash":…,"timestamp":…,"tree_size":…}'),
});
export const ConsistencyProof = z.object({
  from: z.number().int(),
  to: z.number().int(),
  proof: z.array(base64('A node hash')).describe('RFC 9162 §2.1.4 consistency proof'),
});
export const PaymentProof = z.object({
  tree_head: TreeHead.describe('The latest signed tree head; every audit_path is against it'),
  leaves: z.array(
    z.object({
      leaf_index: z.number().int(),
      leaf: z.string().describe('The canonical JSON that was hashed: SHA-256(0x00 ‖ UTF-8 bytes)'),
      audit_path: z.array(base64('A node hash')).describe('RFC 9162 §2.1.3 inclusion proof'),
    }),
  ),
});
