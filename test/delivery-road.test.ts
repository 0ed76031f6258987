/**
 * One host, one way in (docs/webhooks.md, "One road"): every delivery is the workflow named by its
 * id; a payment's publication starts its deliveries' workflows (not children of its run), and a resend of a
 * delivery whose workflow has closed starts that workflow id again (update-with-start), its
 * attempts numbered after the log's.
 */
import { describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { accountWithWebhook } from './helpers/webhooks';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack({
  env: {
    WEBHOOK_RETRY_INITIAL_INTERVAL: '100ms',
    WEBHOOK_RETRY_BACKOFF: '1',
    WEBHOOK_RETRY_MAX_INTERVAL: '100ms',
    WEBHOOK_MAX_ATTEMPTS: '2',
    WEBHOOK_TIMEOUT: '1s',
  },
});

describe('one host, one way in', () => {
  it("a payment's delivery is its own workflow, started by the publication, not a child of the payment's run; a resend after it closed runs that workflow id again, numbered on", async () => {
    let up = false;
    const receiver = await startReceiver(() => (up ? 200 : 503));
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      const payment = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body;
      const log = `/api/v1/webhooks/${hook.id}/deliveries`;
      const failed = await eventually(
        async () => (await stack.http.get(`${log}?status=failed`, { key })).body.data[0],
        20_000,
        'the delivery to fail its two attempts',
      );

      // The delivery's own workflow, started by the creation's publication; it closes just after the log says failed.
      const own = await eventually(
        async () => {
          const described = await stack.client.workflow.getHandle(failed.id).describe();
          return described.status.name === 'RUNNING' ? undefined : described;
        },
        20_000,
        "the delivery's workflow to close",
      );
      expect([own.type, own.taskQueue, own.parentExecution ?? null]).toEqual([
        'webhookDeliveryWorkflow',
        `${stack.taskQueue}-webhooks`,
        null,
      ]);
      // Its start is not in the payment's history: a child's start and end would cost the payment's run events and tasks.
      const { events } = await stack.client.workflow.getHandle(payment.id).fetchHistory();
      expect((events ?? []).flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? [])).toEqual([]);
      // No attempt runs in the payment's history: the delivery's workflow makes them all.
      expect((events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook')).toEqual([]);

      // Closed, its two attempts logged: a resend runs the same workflow id again, attempt 3.
      up = true;
      const resend = await stack.http.post(`${log}/${failed.id}/resend`, { key });
      expect([resend.status, resend.body]).toEqual([202, { success: true, delivery_id: failed.id, attempt: 3 }]);
      const done = await eventually(async () => {
        const d = (await stack.http.get(`${log}/${failed.id}`, { key })).body;
        return d.status === 'succeeded' ? d : undefined;
      });
      expect(done.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 503],
        [2, 503],
        [3, 200],
      ]);
      const runs = [];
      for await (const w of stack.client.workflow.list({ query: `WorkflowId = "${failed.id}"` })) runs.push(w);
      expect(runs).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});
