/** The deadline every Temporal call made for a request runs under. */
import type { Client } from '@temporalio/client';

/** Calls to Temporal from a request give up after this long (503), instead of gRPC's patient retries. */
export const TEMPORAL_CALL_TIMEOUT_MS = 10_000;

/** Run `fn`'s Temporal calls under one deadline (ms since epoch): a request's own, else the default from now. */
export function withinDeadline<T>(temporal: Client, fn: () => Promise<T>, deadline = Date.now() + TEMPORAL_CALL_TIMEOUT_MS): Promise<T> {
  return temporal.connection.withDeadline(deadline, fn);
}
