/** What the HTTP layer is handed (`AppDeps`) and what a request carries through Koa (`AppState`). */
import type { Config } from '../config';
import type { Principal } from '../../tenants/tenancy.rules';
import type { Logger } from '../lib/logger';
import type { Services } from '../services';
import { TEMPORAL_CALL_TIMEOUT_MS } from '../lib/temporalDeadline';
import type { Call } from '../../payments/paymentRun.service';

export type { Principal };

/** What the HTTP layer is given: the use cases, never the Temporal client or the repositories. */
export interface AppDeps {
  services: Services;
  config: Config;
  logger: Logger;
}

export interface AppState {
  /** The service's own id of this request (req_ and 32 hex digits): logs and Temporal carry it, never a client's. */
  requestId: string;
  /** The id the answer carries (X-Request-Id, an error's request_id): the client's own when it sent one, else `requestId`. */
  answerRequestId: string;
  rawBody?: Buffer;
  body?: unknown;
  principal?: Principal;
  /** With an Idempotency-Key: the id for what this request creates, stable across its retries. */
  resourceId?: string;
  /** The key's earlier attempt failed on our side: what it started may already exist. */
  retry?: boolean;
  /** The answer holds a secret (a new API key, a webhook secret): never stored for replay. */
  responseHoldsSecret?: boolean;
  /** When this request must have its answer (ms since epoch): one deadline for all its Temporal calls. */
  deadline?: number;
}

export { TEMPORAL_CALL_TIMEOUT_MS };

/** What a use case needs of the request: who, which request, its idempotency and its deadline. */
export function callOf(state: AppState): Call {
  if (!state.principal) throw new Error('callOf before authentication');
  return {
    principal: state.principal,
    requestId: state.requestId,
    resourceId: state.resourceId,
    retry: state.retry,
    deadline: state.deadline,
  };
}
