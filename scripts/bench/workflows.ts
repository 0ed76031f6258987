/**
 * The engine's workflows (bench only, bundled for their own worker):
 *  (B)  `benchLifecycleWorkflow` takes three Updates and closes: no activities, no timers, no side
 *       effects — what Temporal itself costs for a start and three synchronous Updates.
 *  (B2) `benchWebhookWorkflow` does the least the service's design allows: the same start and three
 *       Updates, and per transition one activity that POSTs the signed event to the webhook receiver
 *       under a retry policy (./engineActivities.ts). Like the service, an Update answers once the
 *       transition is durable; its delivery runs after.
 */
import { allHandlersFinished, condition, defineUpdate, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { EngineActivities } from './engineActivities';

export const stepUpdate = defineUpdate<number, [string]>('step');

export async function benchLifecycleWorkflow(): Promise<number> {
  let steps = 0;
  setHandler(stepUpdate, () => ++steps);
  await condition(() => steps >= 3);
  await condition(allHandlersFinished);
  return steps;
}

/** The service's retry policy for deliveries, in its test-speed form: the happy path never retries. */
const { postEvent } = proxyActivities<EngineActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

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
