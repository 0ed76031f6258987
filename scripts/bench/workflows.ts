/**
 * The engine's workflows (bench only, bundled for their own worker):
 *  (B)  `benchLifecycleWorkflow` takes three Updates and closes: no activities, no timers, no side
 *       effects — what Temporal itself costs for a start and three synchronous Updates.
 *  (B2) `benchWebhookWorkflow` does the least the service's design allows: the same start and three
 *       Updates, and per transition one activity that POSTs the signed event to the webhook receiver
 *       under a retry policy (./engineActivities.ts). Like the service, an Update answers once the
 *       transition is durable; its delivery runs after.
 *  (B3) `benchFloorWorkflow`, behind its own API (./floorFront.ts): the payment's statuses, a
 *       validator that refuses a step the status does not allow, and per transition one activity that
 *       projects the new version onto the read-model row, then POSTs the event (./floorActivities.ts).
 *  (B4) `benchSplitFloorWorkflow`, behind the same front: B3 with its two steps as two activities, as
 *       the service's contract requires (docs/webhooks.md, "One road"): per transition the projection
 *       on the workflow's task queue, then, once it has answered, the POST on a webhooks task queue of
 *       its own (named as the service names its own) with a fairness key and a priority.
 */
import { allHandlersFinished, condition, defineUpdate, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PaymentStatus } from '../../src/payments/paymentTypes.rules';
import { tenantPriority } from '../../src/webhooks/deliverySeries.rules';
import { webhookTaskQueue } from '../../src/webhooks/retrySchedule';
import type { EngineActivities } from './engineActivities';
import type { FloorActivities, FloorPayment } from './floorActivities';

export const stepUpdate = defineUpdate<number, [string]>('step');

export async function benchLifecycleWorkflow(): Promise<number> {
  let steps = 0;
  setHandler(stepUpdate, () => ++steps);
  await condition(() => steps >= 3);
  await condition(allHandlersFinished);
  return steps;
}

/** The service's retry policy for deliveries, in its test-speed form: the happy path never retries. */
const DELIVERY_OPTIONS = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
} as const;
const { postEvent, project, projectAndPost } = proxyActivities<EngineActivities & FloorActivities>(DELIVERY_OPTIONS);

/** The event each step's Update publishes (the service's names, so the receiver keys them alike). */
const STEP_EVENTS: Record<string, string> = { deposit: 'payment.deposited', approve: 'payment.approved', release: 'payment.released' };

export async function benchWebhookWorkflow(): Promise<number> {
  const id = workflowInfo().workflowId;
  const deliveries: Promise<void>[] = [postEvent(id, 'payment.created')];
  let steps = 0;
  setHandler(stepUpdate, (step) => {
    steps++;
    deliveries.push(postEvent(id, STEP_EVENTS[step] ?? `payment.${step}`));
    return steps;
  });
  await condition(() => steps >= 3);
  await condition(allHandlersFinished);
  await Promise.all(deliveries);
  return steps;
}

export const floorStepUpdate = defineUpdate<FloorPayment, [string]>('floorStep');

/** The service's statuses along the lifecycle the bench drives. */
const FLOOR_STEPS: Partial<Record<string, { from: PaymentStatus; to: PaymentStatus }>> = {
  deposit: { from: 'pending_deposit', to: 'in_custody' },
  approve: { from: 'in_custody', to: 'pending_release' },
  release: { from: 'pending_release', to: 'released' },
};

export async function benchFloorWorkflow(): Promise<FloorPayment> {
  return floorLifecycle(projectAndPost);
}

export async function benchSplitFloorWorkflow(): Promise<FloorPayment> {
  const { postEvent: deliver } = proxyActivities<EngineActivities>({
    ...DELIVERY_OPTIONS,
    taskQueue: webhookTaskQueue({ TEMPORAL_TASK_QUEUE: workflowInfo().taskQueue }),
    // The account and mode of the floor's one key (./floor.ts), keyed as the service keys a tenant.
    priority: tenantPriority({ accountId: 'acct_bench', livemode: false }),
  });
  return floorLifecycle(async (payment, event) => {
    await project(payment);
    await deliver(payment.id, event);
  });
}

/** B3's and B4's payment: its statuses, a validator, and per transition `publish` (projection, then delivery). */
async function floorLifecycle(publish: (payment: FloorPayment, event: string) => Promise<void>): Promise<FloorPayment> {
  const payment: FloorPayment = { id: workflowInfo().workflowId, status: 'pending_deposit', version: 1 };
  // Version 1 is the front's INSERT at create: this projection leaves the row as it is and only delivers.
  const deliveries: Promise<void>[] = [publish({ ...payment }, 'payment.created')];
  setHandler(
    floorStepUpdate,
    (step) => {
      payment.status = FLOOR_STEPS[step]!.to;
      payment.version++;
      deliveries.push(publish({ ...payment }, STEP_EVENTS[step]));
      return { ...payment };
    },
    {
      validator: (step) => {
        if (FLOOR_STEPS[step]?.from !== payment.status) throw new Error(`cannot ${step} a payment whose status is ${payment.status}`);
      },
    },
  );
  await condition(() => payment.status === 'released');
  await condition(allHandlersFinished);
  await Promise.all(deliveries);
  return payment;
}
