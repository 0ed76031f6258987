/** A recipient as the API and its `recipient.updated` webhook show it (docs/concepts.md, "Recipients"), and its balance. */
import { z } from 'zod';
import { RECIPIENT_TYPES, type RecipientState, VERIFICATION_STATUSES } from '../domain/recipients';

const RequirementsSchema = z.object({
  currently_due: z.array(z.string()).describe('What the platform must still collect'),
  past_due: z.array(z.string()).describe('What is overdue: payouts stay disabled while any is'),
  pending_verification: z.array(z.string()).describe('What the verification vendor is still examining'),
  errors: z.array(z.object({ requirement: z.string(), reason: z.string() })).describe('Why something submitted was refused'),
});

export const RecipientViewSchema = z.object({
  id: z.string().describe('rcp_ + ULID'),
  object: z.literal('recipient'),
  email: z.string(),
  name: z.string().nullable(),
  country: z.string().describe('ISO 3166-1 alpha-2'),
  type: z.enum(RECIPIENT_TYPES),
  metadata: z.record(z.string(), z.string()),
  livemode: z.boolean(),
  verification: z.object({
    status: z.enum(VERIFICATION_STATUSES),
    requirements: RequirementsSchema,
    disabled_reason: z.string().nullable(),
  }),
  payouts_enabled: z.boolean().describe('verification.status is verified and requirements.past_due is empty'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RecipientView = z.infer<typeof RecipientViewSchema>;

export function recipientView(r: RecipientState): RecipientView {
  return {
    id: r.id,
    object: 'recipient',
    email: r.email,
    name: r.name,
    country: r.country,
    type: r.type,
    metadata: r.metadata,
    livemode: r.livemode,
    verification: {
      status: r.verification.status,
      requirements: r.verification.requirements,
      disabled_reason: r.verification.disabledReason,
    },
    payouts_enabled: r.payoutsEnabled,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** The body of a recipient's event (docs/webhooks.md): `sequence` is the recipient's version. */
export interface RecipientEnvelope {
  event: 'recipient.updated';
  recipient_id: string;
  timestamp: string;
  sequence: number;
  data: RecipientView;
}

export function recipientEnvelope(r: RecipientState): RecipientEnvelope {
  return { event: 'recipient.updated', recipient_id: r.id, timestamp: r.updatedAt, sequence: r.version, data: recipientView(r) };
}
