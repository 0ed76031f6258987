/**
 * The create body of `POST /api/v1/payments` (src/payments/payments.routes.ts): its fields as JSON Schema
 * says them, and the rules it cannot express, each problem naming its field.
 */
import { z } from 'zod';
import { MAX_MILESTONES, MAX_REFERENCE_LENGTH } from './milestones.rules';
import { FUNDINGS } from './paymentTypes.rules';
import { formatMinor } from '../ledger/amountText.rules';
import { currencyRefusal, isCurrency, minorUnits, toMinor } from '../ledger/money.rules';
import type { NewPayment } from './paymentCreation.service';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { email, text } from '../platform/http/common.schemas';
import { idPattern } from '../platform/http/parse';

const recipientId = z.string().regex(idPattern('rcp'), 'must be a recipient id (rcp_…)');

const autoReleaseAfterSeconds = z
  .number()
  .int()
  .min(1)
  .max(365 * 24 * 3600);

/** One milestone of a create body (docs/concepts.md, "Deals paid in stages"). */
const MilestoneFields = z
  .object({
    reference: text(MAX_REFERENCE_LENGTH)
      .min(1)
      .optional()
      .describe(`Your name for it, unique within the payment (≤ ${MAX_REFERENCE_LENGTH} characters)`),
    description: text(1000).nullable().optional(),
    amount: z
      .number({ message: 'amount must be a number in major units, e.g. 10.50' })
      .describe("Its part of the payment's amount, in major units; the milestones' amounts sum to the amount"),
    recipient_email: email.optional().describe("Who it is released to (default: the payment's recipient_email)"),
    recipient: recipientId
      .optional()
      .describe(
        "A recipient (rcp_…) of the same account and mode, instead of recipient_email: its e-mail is the milestone's (default: the payment's)",
      ),
    auto_release_after_seconds: autoReleaseAfterSeconds
      .optional()
      .describe("Release this long after its approval (default: the payment's)"),
  })
  .strict();

/** The create body's fields, as JSON Schema says them: `createPaymentRequest` adds the rest. */
export const CreatePaymentFields = z
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
    recipient_email: email.optional().describe('Who it is released to; required unless recipient is given'),
    recipient: recipientId
      .optional()
      .describe(
        "A recipient (rcp_…) of the same account and mode, instead of recipient_email: its e-mail becomes the payment's recipient_email",
      ),
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
    auto_release_after_seconds: autoReleaseAfterSeconds
      .optional()
      .describe('Release this long after approval, unless disputed or refunded'),
    funding: z
      .enum(FUNDINGS)
      .optional()
      .describe(
        'How the money comes in (docs/bank.md): "api" (default), the platform reports the deposit with POST …/deposit; "bank_transfer", the payer transfers it to the custody account with funding_instructions.reference',
      ),
    milestones: z
      .array(MilestoneFields)
      .min(1, 'milestones must have at least 1 item')
      .max(MAX_MILESTONES, `milestones can have at most ${MAX_MILESTONES} items`)
      .optional()
      .describe(
        `The parts the amount is paid in, 1 to ${MAX_MILESTONES}, each approved and released on its own; without it, one of the whole amount`,
      ),
  })
  .strict();

const metadata = CreatePaymentFields.shape.metadata;

/**
 * Metadata as `CreatePaymentFields` checks it, and no "__proto__" key: JSON.parse keeps one, but
 * zod (and any object built from it) drops it without a word, so it is looked for in the input
 * (a preprocess step, which the document reads through to the record it feeds).
 */
const metadataWithoutProto = z
  .preprocess((m, ctx) => {
    if (typeof m === 'object' && m !== null && Object.hasOwn(m, '__proto__'))
      ctx.issues.push({ code: 'custom', path: ['__proto__'], message: '"__proto__" cannot be a metadata key', input: m });
    return m;
  }, metadata.unwrap())
  .optional()
  .describe(metadata.description ?? '');

/**
 * The milestones' amounts: each > 0 with the currency's decimals, and together exactly the amount
 * (when it is valid), each problem naming its field.
 */
function milestoneAmountIssues(
  milestones: unknown[],
  currency: string,
  amount: bigint | undefined,
  issue: (field: string, message: string) => void,
) {
  let sum = 0n;
  let complete = true;
  for (const [i, m] of milestones.entries()) {
    const value = (m as { amount?: unknown } | null)?.amount;
    // Not a number: the schema has said so already.
    const parsed = typeof value === 'number' ? toMinor(value, currency, { field: 'amount' }) : undefined;
    if (parsed?.ok) sum += parsed.minor;
    else {
      if (parsed) issue(`milestones.${i}.amount`, parsed.message);
      complete = false;
    }
  }
  if (complete && amount !== undefined && sum !== amount) {
    const major = (minor: bigint) => formatMinor(minor, minorUnits(currency));
    issue('milestones', `the milestones' amounts sum to ${major(sum)} ${currency}, not the amount ${major(amount)} ${currency}`);
  }
}

/**
 * The create body as the use case takes it: the schema, plus the rules JSON Schema cannot express
 * (a currency ISO 4217 knows, the currency's precision, the maximum `maxAmount`, a fee within the
 * amount, distinct parties, no `__proto__` key). They run even when other fields failed, so that
 * every problem is reported at once, each naming its field; a rule waits for the fields it reads.
 */
export function createPaymentRequest(maxAmount: number) {
  const schema = CreatePaymentFields.extend({ metadata: metadataWithoutProto })
    .superRefine(
      (value, ctx) => {
        const failed = new Set(ctx.issues.map((i) => (i.path ?? []).join('.')));
        // The input itself when it is no object at all: its fields then read as missing.
        const input: unknown = value;
        const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
        const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
        const currency = typeof raw.currency === 'string' ? raw.currency.toUpperCase() : '';
        if (!failed.has('currency') && !isCurrency(currency)) {
          issue('currency', currencyRefusal(currency));
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
          if (Array.isArray(raw.milestones) && !failed.has('milestones')) {
            milestoneAmountIssues(raw.milestones, currency, amount.ok ? amount.minor : undefined, issue);
          }
        }
        if (Array.isArray(raw.milestones)) {
          const seen = new Map<unknown, number>();
          (raw.milestones as ({ reference?: unknown; recipient_email?: unknown; recipient?: unknown } | null)[]).forEach((m, i) => {
            if (m?.recipient !== undefined && m.recipient_email !== undefined) {
              issue(`milestones.${i}.recipient`, 'name recipient or recipient_email, not both');
            }
            if (m?.reference !== undefined && seen.has(m.reference)) {
              issue(
                `milestones.${i}.reference`,
                `reference must be unique within the payment: milestones.${seen.get(m.reference)} has it too`,
              );
            } else if (m?.reference !== undefined) seen.set(m.reference, i);
            if (typeof m?.recipient_email === 'string' && m.recipient_email.toLowerCase() === String(raw.payer_email).toLowerCase()) {
              issue(`milestones.${i}.recipient_email`, 'recipient_email must differ from payer_email');
            }
          });
        }
        // A transfer's credits fund the payment as a whole, not a milestone's part (docs/bank.md).
        if (raw.funding === 'bank_transfer' && raw.milestones !== undefined) {
          issue('funding', 'bank_transfer funds a payment without milestones: the transfer pays the whole amount');
        }
        if (raw.recipient !== undefined && raw.recipient_email !== undefined) {
          issue('recipient', 'name recipient or recipient_email, not both');
        } else if (raw.recipient === undefined && raw.recipient_email === undefined) {
          issue('recipient_email', 'is required (or name a recipient)');
        }
        if (
          typeof raw.recipient_email === 'string' &&
          !failed.has('payer_email') &&
          !failed.has('recipient_email') &&
          String(raw.payer_email).toLowerCase() === raw.recipient_email.toLowerCase()
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
        ...(body.recipient === undefined ? { recipientEmail: body.recipient_email! } : { recipient: body.recipient }),
        description: body.description,
        metadata: body.metadata,
        depositDeadlineSeconds: body.deposit_deadline_seconds,
        autoReleaseAfterSeconds: body.auto_release_after_seconds,
        funding: body.funding ?? 'api',
        ...(body.milestones
          ? {
              milestones: body.milestones.map((m) => ({
                reference: m.reference,
                description: m.description,
                amountMinor: minor(m.amount),
                recipientEmail: m.recipient_email,
                recipient: m.recipient,
                autoReleaseAfterSeconds: m.auto_release_after_seconds,
              })),
            }
          : {}),
      };
    });
  // Every instance documents alike (the maximum is checked, not documented): the document names the route's own.
  return component('CreatePaymentRequest', schema, S.createPayment);
}
