/**
 * A payment's personal data and client free text (docs/architecture.md, "Personal data"): what stays
 * inside the service — never in Temporal — and what an erasure puts in its place. Pure (node:crypto
 * only, no I/O); not imported by workflows.
 */
import { createHmac } from 'node:crypto';
import type { PaymentState } from './payment';

/** What an erased field shows. */
export const REDACTED = '[redacted]';

/** The payment's personal fields, as `PaymentState` names them. */
export interface PersonalData {
  payerEmail: string;
  recipientEmail: string;
  description: string | null;
  metadata: Record<string, string>;
}

export const personalOf = ({ payerEmail, recipientEmail, description, metadata }: PersonalData): PersonalData => ({
  payerEmail,
  recipientEmail,
  description,
  metadata,
});

/** The payment as its workflow carries it: ids and amounts, the personal fields empty. */
export const withoutPersonal = (state: PaymentState): PaymentState => ({
  ...state,
  payerEmail: '',
  recipientEmail: '',
  description: null,
  metadata: {},
});

/** The payment with the personal fields the service keeps (a workflow's state has them empty). */
export const withPersonal = (state: PaymentState, personal: PersonalData | undefined): PaymentState =>
  personal ? { ...state, ...personalOf(personal) } : state;

/** What an erasure leaves: "[redacted]" in place of each field that held something. */
export function redactedPersonal(p: PersonalData): PersonalData {
  return {
    payerEmail: REDACTED,
    recipientEmail: REDACTED,
    description: p.description === null ? null : REDACTED,
    // Keys can be personal too: none is kept.
    metadata: Object.keys(p.metadata).length > 0 ? { redacted: REDACTED } : {},
  };
}

/** A payment view (API answer, event data, webhook `data`) with its personal fields erased. */
export function redactView<T extends Record<string, unknown>>(view: T): T {
  const metadata = (view.metadata ?? {}) as Record<string, string>;
  const erased = redactedPersonal({
    payerEmail: String(view.payer_email),
    recipientEmail: String(view.recipient_email),
    description: (view.description as string | null | undefined) ?? null,
    metadata,
  });
  return {
    ...view,
    payer_email: erased.payerEmail,
    recipient_email: erased.recipientEmail,
    description: erased.description,
    metadata: erased.metadata,
  };
}

/** How a reason's keyed hash starts: what the workflow and the custody trail carry instead of the text. */
const REASON_HASH_PREFIX = 'hmac:';

/** `hmac:` and the hex HMAC-SHA256 of a transition's reason under the service's reason key. */
export function reasonHash(key: Buffer, reason: string): string {
  return `${REASON_HASH_PREFIX}${createHmac('sha256', key).update(reason, 'utf8').digest('hex')}`;
}

export const isReasonHash = (reason: string | null): reason is string => reason !== null && /^hmac:[0-9a-f]{64}$/.test(reason);

/** What a trail leaf holds for a reason: its keyed hash, never the text. */
export const leafReason = (key: Buffer, reason: string | null): string | null =>
  reason === null ? null : isReasonHash(reason) ? reason : reasonHash(key, reason);
