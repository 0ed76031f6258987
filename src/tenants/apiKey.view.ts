/** An API key as the API shows it: its mode and last four characters, never the key but once. */
import { z } from 'zod';

export const ApiKeyViewSchema = z.object({
  id: z.string(),
  object: z.literal('api_key'),
  mode: z.enum(['test', 'live']),
  last4: z.string(),
  created_at: z.string(),
});
type ApiKeyView = z.infer<typeof ApiKeyViewSchema>;

export function apiKeyView(k: { id: string; livemode: boolean; last4: string; created_at: Date }): ApiKeyView {
  return { id: k.id, object: 'api_key', mode: k.livemode ? 'live' : 'test', last4: k.last4, created_at: k.created_at.toISOString() };
}
