import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';

export interface AppDeps {
  db: Knex;
  temporal: Client;
  config: Config;
  logger: Logger;
}

/** Who is calling, in which mode: set by the auth middleware. */
export interface Principal {
  accountId: string;
  livemode: boolean;
  /** API key id or user id: recorded as the actor of transitions. */
  actor: string;
  /** The credential rate limits count against. */
  credential: string;
}

export interface AppState {
  requestId: string;
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

/** Calls to Temporal from a request give up after this long (503), instead of gRPC's patient retries. */
export const TEMPORAL_CALL_TIMEOUT_MS = 10_000;

/** What is left of the request's deadline (all of it when none was set). */
export function remainingMs(state: Pick<AppState, 'deadline'>): number {
  return state.deadline === undefined ? TEMPORAL_CALL_TIMEOUT_MS : Math.max(state.deadline - Date.now(), 1);
}

export function withTemporalDeadline<T>(temporal: Client, fn: () => Promise<T>, ms = TEMPORAL_CALL_TIMEOUT_MS): Promise<T> {
  return temporal.connection.withDeadline(Date.now() + ms, fn);
}
