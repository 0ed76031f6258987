/**
 * The engine ceiling's workflow (bench only, bundled for its own worker): it takes three Updates
 * and closes. No activities, no timers, no side effects: what Temporal itself costs for a
 * start and three synchronous updates.
 */
import { allHandlersFinished, condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const stepUpdate = defineUpdate<number, [string]>('step');

export async function benchLifecycleWorkflow(): Promise<number> {
  let steps = 0;
  setHandler(stepUpdate, () => ++steps);
  await condition(() => steps >= 3);
  await condition(allHandlersFinished);
  return steps;
}
