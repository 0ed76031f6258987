/**
 * A webhook delivery as the delivery log shows it (docs/webhooks.md): its status, its next attempt
 * and every attempt made. One zod schema each, for the type and the OpenAPI document.
 */
import { z } from 'zod';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const;
export const DeliveryStatusSchema = z.enum(DELIVERY_STATUSES);

export const DeliveryAttemptViewSchema = z.object({
  attempt: z.number(),
  at: z.string(),
  status_code: z.number().nullable(),
  duration_ms: z.number(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable().describe("The first 1 KB of the receiver's answer"),
});

export const DeliveryViewSchema = z.object({
  id: z.string(),
  event: z.string(),
  payment_id: z.string().nullable(),
  status: DeliveryStatusSchema,
  created_at: z.string(),
  next_attempt_at: z.string().nullable().describe("A pending delivery's next attempt, by the retry policy"),
  attempts: z.array(DeliveryAttemptViewSchema),
});
export type DeliveryView = z.infer<typeof DeliveryViewSchema>;

/** What the log shows of one stored attempt (the repository's row holds these columns). */
export interface AttemptFields {
  attempt: number;
  at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/** A logged delivery and its attempts (oldest first); `nextAttemptAt` from the retry policy. */
export function deliveryView(
  d: { id: string; event: string; payment_id: string | null; status: (typeof DELIVERY_STATUSES)[number]; created_at: Date },
  attempts: AttemptFields[],
  nextAttemptAt: Date | null,
): DeliveryView {
  return {
    id: d.id,
    event: d.event,
    payment_id: d.payment_id,
    status: d.status,
    created_at: d.created_at.toISOString(),
    next_attempt_at: nextAttemptAt ? nextAttemptAt.toISOString() : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
      response_excerpt: a.response_excerpt,
    })),
  };
}
