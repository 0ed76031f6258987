/** A workflow query that gives up: a run whose workers are gone would otherwise hold the caller for gRPC's whole patience. */
import type { Client } from '@temporalio/client';

/** The query's answer, or undefined when the workflow is missing or does not answer within `timeoutMs`. */
export function queryOrUndefined<T>(client: Client, workflowId: string, queryName: string, timeoutMs = 2_000): Promise<T | undefined> {
  return client.connection
    .withDeadline(Date.now() + timeoutMs, () => client.workflow.getHandle(workflowId).query<T>(queryName))
    .catch(() => undefined);
}
