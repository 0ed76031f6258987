/**
 * The payment with the personal data the service keeps beside its workflow's state
 * (docs/architecture.md, "Personal data: kept out of Temporal"): the workflow holds `PaymentState`
 * (./paymentTypes.ts), which has no personal field; the read model stores a `PaymentRecord`; the
 * service answers a `PaymentDetails`, which src/payments/payment.view.ts renders. Types only.
 */
import type { DisputeState, EvidenceState, MilestoneState, OfferState, PaymentState } from './paymentTypes.rules';

/** A payment's personal fields and client free text: in PostgreSQL only (`payment_personal`, the read model's row). */
export interface PaymentPersonalFields {
  payerEmail: string;
  recipientEmail: string;
  description: string | null;
  metadata: Record<string, string>;
}

/** A milestone's personal fields and client free text, as its payment's. */
export interface MilestonePersonalFields {
  reference: string | null;
  description: string | null;
  recipientEmail: string;
}

/** One milestone with its personal fields. */
export type MilestoneRecord = MilestoneState & MilestonePersonalFields;

/**
 * The payment as the read model stores it: the workflow's state with the personal fields the service
 * keeps. Its disputes' texts stay apart, under their keyed hashes (src/payments/disputeTexts.repository.ts).
 */
export type PaymentRecord = Omit<PaymentState, 'milestones'> & PaymentPersonalFields & { milestones: MilestoneRecord[] };

/** A dispute with its texts, read from where the service keeps them under the hashes (never in Temporal). */
export interface DisputeWithTexts extends Omit<DisputeState, 'evidence' | 'offers'> {
  /** The reason's text; null when it was opened without one. */
  reasonText: string | null;
  evidence: (EvidenceState & { text: string })[];
  offers: (OfferState & { note: string | null })[];
}

/** The payment as the service answers it (API, events, webhooks): the record with its disputes' texts. */
export type PaymentDetails = Omit<PaymentRecord, 'disputes'> & { disputes?: DisputeWithTexts[] };
