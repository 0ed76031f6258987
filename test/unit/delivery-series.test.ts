/** How a delivery's work is dispatched (src/webhooks/deliverySeries.rules.ts): the tenant's fairness key, live before test, and a series' start options. */
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { LIVE_PRIORITY, TEST_PRIORITY, fairnessKey, seriesStartOptions, tenantPriority } from '../../src/webhooks/deliverySeries.rules';

const test = { accountId: 'acct_1', livemode: false };
const live = { accountId: 'acct_1', livemode: true };

describe('tenant priority', () => {
  it('keys fairness by account and mode, and puts live before test', () => {
    expect([fairnessKey(test), fairnessKey(live)]).toEqual(['acct_1:test', 'acct_1:live']);
    expect(LIVE_PRIORITY).toBeLessThan(TEST_PRIORITY);
    expect(tenantPriority(live)).toEqual({ priorityKey: LIVE_PRIORITY, fairnessKey: 'acct_1:live' });
    expect(tenantPriority(test)).toEqual({ priorityKey: TEST_PRIORITY, fairnessKey: 'acct_1:test' });
  });
});

describe('seriesStartOptions', () => {
  it('a first series joins a running one and never runs twice; a later one starts after the last ended and never beside it', () => {
    const first = seriesStartOptions('dlv_1', live, 'q-webhooks', 'deliver payment.created → wh_1', true);
    expect(first).toEqual({
      workflowId: 'dlv_1',
      taskQueue: 'q-webhooks',
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      priority: { priorityKey: LIVE_PRIORITY, fairnessKey: 'acct_1:live' },
      typedSearchAttributes: [{ key: expect.objectContaining({ name: 'RecordKind' }), value: 'delivery' }],
      staticSummary: 'deliver payment.created → wh_1',
    });
    const later = seriesStartOptions('dlv_1', test, 'q-webhooks', 'resend', false);
    expect([later.workflowIdReusePolicy, later.workflowIdConflictPolicy, later.priority.priorityKey]).toEqual([
      WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      WorkflowIdConflictPolicy.FAIL,
      TEST_PRIORITY,
    ]);
  });
});
