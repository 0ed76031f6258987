/**
 * Starting one statement's reconciliation (docs/reconciliation.md) from wherever a statement is
 * taken (the bank inbox's activity): its workflow, named by the statement's message id, so a second
 * start — a retried activity, the same file again — meets the first and starts nothing.
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';

/** The workflow's id for a statement: one per message id, ever. */
export const reconciliationWorkflowId = (messageId: string) => `reconciliation:${messageId}`;

export async function startStatementReconciliation(
  client: Client,
  { messageId, taskQueue }: { messageId: string; taskQueue: string },
): Promise<void> {
  try {
    // By name: activities import no workflow code (src/reconciliation/reconciliation.workflow.ts).
    await client.workflow.start('reconciliationWorkflow', {
      workflowId: reconciliationWorkflowId(messageId),
      taskQueue,
      args: [{ messageId }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      staticSummary: `reconcile statement ${messageId}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
