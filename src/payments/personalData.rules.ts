/**
 * A payment's personal data and client free text (docs/architecture.md, "Personal data"): what stays
 * inside the service — never in Temporal — and what an erasure puts in its place. Pure (node:crypto
 * only, no I/O); not imported by workflows.
 */
import { createHmac } from 'node:crypto';
import type { DisputeState, PaymentState } from './paymentTypes.rules';
import type { DisputeWithTexts, MilestonePersonalFields, PaymentPersonalFields, PaymentRecord } from './paymentRecord.rules';
import { REASON_HASH_PREFIX, isReasonHash } from './reasonHash.rules';

export { isReasonHash };

/** What an erased field shows. */
export const REDACTED = '[redacted]';

/** A milestone's personal fields and client text, by its id. */
export type MilestonePersonal = { id: string } & MilestonePersonalFields;

/** The payment's personal fields, as the service keeps them (`payment_personal`). */
export interface PersonalData extends PaymentPersonalFields {
  /** A payment created with milestones: theirs. Otherwise its one milestone's recipient is the payment's. */
  milestones?: MilestonePersonal[] | null;
}

const milestonePersonal = ({ id, reference, description, recipientEmail }: MilestonePersonal): MilestonePersonal => ({
  id,
  reference,
  description,
  recipientEmail,
});

export const personalOf = (p: PaymentPersonalFields & { staged?: boolean; milestones?: MilestonePersonal[] | null }): PersonalData => ({
  payerEmail: p.payerEmail,
  recipientEmail: p.recipientEmail,
  description: p.description,
  metadata: p.metadata,
  milestones: p.staged && p.milestones ? p.milestones.map(milestonePersonal) : null,
});

/** The payment as its workflow carries it: ids and amounts, no personal field (dropped, not emptied). */
export function withoutPersonal(record: PaymentRecord): PaymentState {
  const { payerEmail: _p, recipientEmail: _r, description: _d, metadata: _m, ...state } = record;
  return { ...state, milestones: record.milestones.map(({ reference: _mr, description: _md, recipientEmail: _me, ...m }) => m) };
}

/** What a payment kept nothing for shows: no e-mail, no text. */
const NO_PERSONAL: PersonalData = { payerEmail: '', recipientEmail: '', description: null, metadata: {} };

/**
 * The personal fields a run's input itself carried, if it did: a run started before the service kept
 * them apart (the recorded histories, docs/architecture.md), or by a test that starts one itself.
 * The workflow passes its input's fields on untouched, so its payload may hold them beyond its type.
 */
function carriedPersonal(state: PaymentState): PersonalData | undefined {
  const carried = state as unknown as Partial<PaymentPersonalFields> & { milestones: Partial<MilestonePersonal>[] };
  if (typeof carried.payerEmail !== 'string') return undefined;
  return {
    payerEmail: carried.payerEmail,
    recipientEmail: carried.recipientEmail ?? '',
    description: carried.description ?? null,
    metadata: carried.metadata ?? {},
    milestones: carried.milestones.map((m) => ({
      id: m.id!,
      reference: m.reference ?? null,
      description: m.description ?? null,
      recipientEmail: m.recipientEmail ?? carried.recipientEmail ?? '',
    })),
  };
}

/**
 * The payment with the personal fields the service keeps; none kept (a run started with them in its
 * input): those the input carried, else empty.
 */
export function withPersonal(state: PaymentState, personal: PersonalData | undefined): PaymentRecord {
  const kept = personal ?? carriedPersonal(state) ?? NO_PERSONAL;
  const own = new Map(kept.milestones?.map((m) => [m.id, m]));
  return {
    ...state,
    payerEmail: kept.payerEmail,
    recipientEmail: kept.recipientEmail,
    description: kept.description,
    metadata: kept.metadata,
    milestones: state.milestones.map((m) => {
      const mine = own.get(m.id);
      return { ...m, ...(mine ? milestonePersonal(mine) : { reference: null, description: null, recipientEmail: kept.recipientEmail }) };
    }),
  };
}

/** What an erasure leaves: "[redacted]" in place of each field that held something. */
export function redactedPersonal(p: PersonalData): PersonalData {
  const erased = (text: string | null) => (text === null ? null : REDACTED);
  return {
    payerEmail: REDACTED,
    recipientEmail: REDACTED,
    description: erased(p.description),
    // Keys can be personal too: none is kept.
    metadata: Object.keys(p.metadata).length > 0 ? { redacted: REDACTED } : {},
    milestones: p.milestones?.map((m) => ({
      id: m.id,
      reference: erased(m.reference),
      description: erased(m.description),
      recipientEmail: REDACTED,
    })),
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
  const milestones = view.milestones as Record<string, unknown>[] | undefined;
  return {
    ...view,
    payer_email: erased.payerEmail,
    recipient_email: erased.recipientEmail,
    description: erased.description,
    metadata: erased.metadata,
    ...(milestones ? { milestones: milestones.map(redactMilestoneView) } : {}),
    ...(view.dispute ? { dispute: redactDisputeView(view.dispute as Record<string, unknown>) } : {}),
  };
}

/** A dispute view with its texts (reason, evidence, offers' notes) erased. */
function redactDisputeView(d: Record<string, unknown>): Record<string, unknown> {
  const erase = (text: unknown) => (text === null || text === undefined ? text : REDACTED);
  const items = (key: string) => (d[key] as Record<string, unknown>[] | undefined) ?? [];
  return {
    ...d,
    reason: erase(d.reason),
    evidence: items('evidence').map((e) => ({ ...e, text: REDACTED })),
    offers: items('offers').map((o) => ({ ...o, note: erase(o.note) })),
  };
}

/** A milestone view (in a payment view, or a milestone event's `milestone`) with its personal fields erased. */
export function redactMilestoneView<T extends Record<string, unknown>>(m: T): T {
  const erase = (text: unknown) => (text === null || text === undefined ? text : REDACTED);
  return {
    ...m,
    reference: erase(m.reference),
    description: erase(m.description),
    recipient_email: REDACTED,
    ...(m.dispute ? { dispute: redactDisputeView(m.dispute as Record<string, unknown>) } : {}),
  };
}

/** `hmac:` and the hex HMAC-SHA256 of a transition's reason under the service's reason key. */
export function reasonHash(key: Buffer, reason: string): string {
  return `${REASON_HASH_PREFIX}${createHmac('sha256', key).update(reason, 'utf8').digest('hex')}`;
}

/** What a trail leaf holds for a reason: its keyed hash, never the text. */
export const leafReason = (key: Buffer, reason: string | null): string | null =>
  reason === null ? null : isReasonHash(reason) ? reason : reasonHash(key, reason);

/** A dispute as Temporal and the read model's row hold it: its texts only as their keyed hashes. */
export function withoutTexts(d: DisputeState | DisputeWithTexts): DisputeState {
  const { reasonText: _r, ...kept } = d as Partial<DisputeWithTexts> & DisputeState;
  return {
    ...kept,
    evidence: d.evidence.map((e) => {
      const { text: _t, ...hashed } = e as typeof e & { text?: string };
      return hashed;
    }),
    offers: d.offers.map((o) => {
      const { note: _n, ...hashed } = o as typeof o & { note?: string | null };
      return hashed;
    }),
  };
}

/** Every keyed hash a payment's disputes hold: the texts to look up. */
export function disputeHashes(disputes: readonly DisputeState[] | undefined): string[] {
  const hashes = new Set<string>();
  for (const d of disputes ?? []) {
    if (d.reason) hashes.add(d.reason);
    for (const e of d.evidence) hashes.add(e.hash);
    for (const o of d.offers) if (o.noteHash) hashes.add(o.noteHash);
  }
  return [...hashes];
}

/** The disputes with their texts, from the texts kept under their hashes (a hash not found shows as erased). */
export function withTexts(disputes: DisputeState[], texts: ReadonlyMap<string, string>): DisputeWithTexts[] {
  const text = (hash: string) => texts.get(hash) ?? REDACTED;
  return disputes.map((d) => ({
    ...d,
    reasonText: d.reason === null ? null : text(d.reason),
    evidence: d.evidence.map((e) => ({ ...e, text: text(e.hash) })),
    offers: d.offers.map((o) => ({ ...o, note: o.noteHash === null ? null : text(o.noteHash) })),
  }));
}
