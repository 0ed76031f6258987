/**
 * A webhook configuration as the API shows it (docs/webhooks.md): without its secret, except in
 * the answers to configure and rotate. One zod schema each, for the type and the OpenAPI document.
 */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from './webhookEvents.rules';

export const WebhookViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  active: z.boolean(),
  disabled_reason: z
    .string()
    .nullable()
    .describe(
      'Why it is off: the receiver answered 410, every delivery failed for the whole window, or "disabled through the API"; null when on',
    ),
});
type WebhookView = z.infer<typeof WebhookViewSchema>;
/** The configure and rotate answers: exactly the spec's fields, plus the secret (shown once). */
export const WebhookSecretViewSchema = WebhookViewSchema.omit({ disabled_reason: true }).extend({ secret: z.string() });
type WebhookSecretView = z.infer<typeof WebhookSecretViewSchema>;
/** A configuration in the list and on its own page: its mode and creation time too. */
export const WebhookListItemViewSchema = WebhookViewSchema.extend({ livemode: z.boolean(), created_at: z.string() });
type WebhookListItemView = z.infer<typeof WebhookListItemViewSchema>;

/** What a configuration holds (the repository's row without its secrets). */
interface WebhookFields {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  livemode: boolean;
  created_at: Date;
}

// The repository stores event names as text; they are the events the configure request allowed.
const events = (w: WebhookFields) => w.events as WebhookView['events'];

export function webhookView(w: WebhookFields): WebhookView {
  return { id: w.id, url: w.url, events: events(w), active: w.active, disabled_reason: w.disabled_reason };
}

export function webhookSecretView(w: WebhookFields & { secret: string }): WebhookSecretView {
  return { id: w.id, url: w.url, events: events(w), active: w.active, secret: w.secret };
}

export function webhookListItemView(w: WebhookFields): WebhookListItemView {
  return { ...webhookView(w), livemode: w.livemode, created_at: w.created_at.toISOString() };
}
