/**
 * What a recipient is (docs/concepts.md, "Recipients"): its verification as the platform reports it,
 * and the one rule derived from it, `payouts_enabled`. Pure; the country list is the maintained
 * ISO 3166-1 table of `i18n-iso-countries`.
 */
import { getAlpha2Codes } from 'i18n-iso-countries';

export const RECIPIENT_TYPES = ['individual', 'company'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

export const VERIFICATION_STATUSES = ['unverified', 'pending', 'verified', 'rejected'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** The events of a recipient (docs/webhooks.md): delivered only to configurations that name them. */
export const RECIPIENT_EVENTS = ['recipient.updated'] as const;
export type RecipientEvent = (typeof RECIPIENT_EVENTS)[number];

export interface Requirements {
  currently_due: string[];
  past_due: string[];
  pending_verification: string[];
  errors: { requirement: string; reason: string }[];
}

export const NO_REQUIREMENTS: Requirements = { currently_due: [], past_due: [], pending_verification: [], errors: [] };

export interface Verification {
  status: VerificationStatus;
  requirements: Requirements;
  disabledReason: string | null;
}

/** A recipient as the service keeps it. */
export interface RecipientState {
  id: string;
  accountId: string;
  livemode: boolean;
  email: string;
  name: string | null;
  country: string;
  type: RecipientType;
  metadata: Record<string, string>;
  verification: Verification;
  payoutsEnabled: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** When it was erased (`POST /recipients/:id/redact`): it then takes no more writes (docs/concepts.md, "Recipients"). */
  redactedAt?: string | null;
}

/** Payouts are enabled exactly when the recipient is verified and nothing is past due. */
export function payoutsEnabled(v: Pick<Verification, 'status' | 'requirements'>): boolean {
  return v.status === 'verified' && v.requirements.past_due.length === 0;
}

/** A recipient money may be released to: anything but `rejected`. */
export function isPayable(r: Pick<RecipientState, 'verification'>): boolean {
  return r.verification.status !== 'rejected';
}

const ALPHA2 = new Set(Object.keys(getAlpha2Codes()));

/** An ISO 3166-1 alpha-2 code, upper case as the standard writes it. */
export function isCountry(code: string): boolean {
  return ALPHA2.has(code);
}

/** The recipient with its personal data erased (docs/operations.md): id, country, type and verification stay. */
export function redactedRecipient(r: RecipientState, redacted: string): RecipientState {
  return {
    ...r,
    email: redacted,
    name: r.name === null ? null : redacted,
    // Keys can be personal too: none is kept.
    metadata: Object.keys(r.metadata).length > 0 ? { redacted } : {},
  };
}
