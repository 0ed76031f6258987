/**
 * The typed client, the package payment-custody-client: openapi-fetch over `paths` from ./schema.ts,
 * which openapi-typescript generates from docs/openapi.json (`npm run openapi`). Each call takes
 * exactly its operation's parameters: a misspelt path, a missing required field or a value outside
 * an enum does not compile (test/typed-client.types.ts). Installing it: docs/client.md. Relative
 * imports name their `.js` file, as Node.js's ES modules (and `nodenext`) require of the built code.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths } from './schema.js';
export { verifyWebhook, verifyWebhookSignature, type WebhookVerdict } from './webhooks.js';

export type Payment = components['schemas']['Payment'];
export type ErrorResponse = components['schemas']['ErrorResponse'];

/** A refusal, with the error format's code to branch on. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorResponse,
  ) {
    super(`${status} ${body.error.code}: ${body.error.message}`);
  }
  get code() {
    return this.body.error.code;
  }
}

/** Authenticates every call: an API key (X-API-Key) or a login's token (Authorization: Bearer). */
export function createClient({ baseUrl, apiKey, token }: { baseUrl: string; apiKey?: string; token?: string }): Client<paths> {
  const headers: Record<string, string> = {};
  if (apiKey) headers['X-API-Key'] = apiKey;
  if (token) headers.Authorization = `Bearer ${token}`;
  return createFetchClient<paths>({ baseUrl, headers });
}

/** The success branch's body of an openapi-fetch answer. */
type Data<R> = R extends { data: infer D; error?: never } ? D : never;

/** The answer of a call, or an ApiRequestError for a refusal: `const p = await ok(api.GET(...))`. */
export async function ok<R extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<R>): Promise<Data<R>> {
  const { data, error, response } = await call;
  if (error !== undefined) throw new ApiRequestError(response.status, error as ErrorResponse);
  return data as Data<R>;
}
