/**
 * The custody trail's tree-head signer, started by a Temporal Schedule every AUDIT_HEAD_INTERVAL
 * (src/audit/audit.service.ts creates it): one activity sequences the waiting leaves and signs a head.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../platform/activities';
import { AUDIT_LOG_INCONSISTENT } from '../platform/failures.rules';

const { signTreeHead } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  // A log inconsistent with its last signed head is an incident for a person, not a retry.
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [AUDIT_LOG_INCONSISTENT] },
});

export async function auditTreeHeadWorkflow(): Promise<{ treeSize: number; timestamp: string }> {
  return signTreeHead();
}
