/** How a delivery's work is dispatched (src/webhooks/deliverySeries.rules.ts): the tenant's fairness key, live before test, and a series' start options. */
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  LIVE_PRIORITY,
  TEST_PRIORITY,
  ENDPOINT_BUSY_RETRY_MAX_MS,
  ENDPOINT_BUSY_RETRY_MIN_MS,
  ENDPOINT_BUSY_RETRY_MS,
  chainsOf,
  endpointBusyDelayMs,
  fairnessKey,
  firstSeriesStart,
  seriesStartOptions,
  tenantPriority,
} from '../../src/webhooks/deliverySeries.rules';
import { DELIVERY_WORKFLOW, DELIVER_UPDATE } from '../../src/webhooks/deliveryRoad';
import { deliverUpdate, webhookDeliveryWorkflow } from '../../src/webhooks/webhookDelivery.workflow';

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

describe('endpointBusyDelayMs', () => {
  it("waits a second after a delivery's first turn-away, twice as long after each later one, and at most 32 s", () => {
    expect([ENDPOINT_BUSY_RETRY_MS, ENDPOINT_BUSY_RETRY_MAX_MS]).toEqual([1_000, 32_000]);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 40].map((logged) => endpointBusyDelayMs(logged))).toEqual([
      1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 32_000, 32_000,
    ]);
  });

  it('waits about as long as the oldest attempt in flight has run: at least 100 ms, doubled after each turn-away, at most 32 s', () => {
    expect(ENDPOINT_BUSY_RETRY_MIN_MS).toBe(100);
    // A receiver that answers at once: a fraction of a second.
    expect([1, 2, 3].map((logged) => endpointBusyDelayMs(logged, 150))).toEqual([150, 300, 600]);
    expect([endpointBusyDelayMs(1, 0), endpointBusyDelayMs(1, 40.4), endpointBusyDelayMs(2, 40)]).toEqual([100, 100, 200]);
    // A slow one: seconds, soon the most.
    expect([1, 2, 3].map((logged) => endpointBusyDelayMs(logged, 9_000))).toEqual([9_000, 18_000, 32_000]);
    expect([endpointBusyDelayMs(1, 60_000), endpointBusyDelayMs(40, 150), endpointBusyDelayMs(5_000, 150)]).toEqual([
      32_000, 32_000, 32_000,
    ]);
  });
});

describe('seriesStartOptions', () => {
  it('a first series never runs twice; a later one may follow a closed run (a running one is joined by the one way in)', () => {
    const first = seriesStartOptions('dlv_1', live, 'q-webhooks', 'deliver payment.created → wh_1', true);
    expect(first).toEqual({
      workflowId: 'dlv_1',
      taskQueue: 'q-webhooks',
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      priority: { priorityKey: LIVE_PRIORITY, fairnessKey: 'acct_1:live' },
      typedSearchAttributes: [{ key: expect.objectContaining({ name: 'RecordKind' }), value: 'delivery' }],
      staticSummary: 'deliver payment.created → wh_1',
    });
    const later = seriesStartOptions('dlv_1', test, 'q-webhooks', 'resend', false);
    expect([later.workflowIdReusePolicy, later.priority.priorityKey]).toEqual([WorkflowIdReusePolicy.ALLOW_DUPLICATE, TEST_PRIORITY]);
  });
});

describe('the one way in', () => {
  it('names the delivery workflow and its update as the workflow code defines them', () => {
    expect([DELIVERY_WORKFLOW, DELIVER_UPDATE]).toEqual([webhookDeliveryWorkflow.name, deliverUpdate.name]);
  });
});

describe('chainsOf', () => {
  it("hands one transition's deliveries to one configuration in order, one chain per configuration", () => {
    const planned = [
      { delivery: { id: 'dlv_a', event: 'payment.partially_refunded' }, webhook: { id: 'wh_1' } },
      { delivery: { id: 'dlv_b', event: 'payment.partially_refunded' }, webhook: { id: 'wh_2' } },
      { delivery: { id: 'dlv_c', event: 'payment.released' }, webhook: { id: 'wh_1' } },
    ];
    expect(chainsOf(planned)).toEqual([
      {
        deliveryId: 'dlv_a',
        webhookId: 'wh_1',
        event: 'payment.partially_refunded',
        then: [{ deliveryId: 'dlv_c', webhookId: 'wh_1', event: 'payment.released' }],
      },
      { deliveryId: 'dlv_b', webhookId: 'wh_2', event: 'payment.partially_refunded' },
    ]);
  });
});

describe('firstSeriesStart', () => {
  const retry = { maximumAttempts: 5 };
  it("starts an event's first series once, at attempt 1, under the tenant's fairness key, labelled by event and configuration", () => {
    const start = firstSeriesStart({ deliveryId: 'dlv_1', webhookId: 'wh_1', event: 'payment.created' }, live, 'q-webhooks', retry);
    expect(start).toEqual({
      ...seriesStartOptions('dlv_1', live, 'q-webhooks', 'deliver payment.created → wh_1', true),
      args: [{ deliveryId: 'dlv_1', series: 'original', retry, base: 0, label: 'deliver payment.created → wh_1' }],
    });
    expect(start.workflowIdReusePolicy).toBe(WorkflowIdReusePolicy.REJECT_DUPLICATE);
  });

  it("hands a split's next delivery to the same configuration to the first one's workflow", () => {
    const then = [{ deliveryId: 'dlv_2', webhookId: 'wh_1', event: 'payment.released' }];
    const start = firstSeriesStart(
      { deliveryId: 'dlv_1', webhookId: 'wh_1', event: 'payment.partially_refunded', then },
      test,
      'q-webhooks',
      retry,
    );
    expect(start.args).toEqual([
      { deliveryId: 'dlv_1', series: 'original', retry, base: 0, label: 'deliver payment.partially_refunded → wh_1', then },
    ]);
    expect(start.staticSummary).toBe('deliver payment.partially_refunded → wh_1');
  });
});
