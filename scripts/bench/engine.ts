/**
 * (B) and (B2), the engine: the workflows of ./workflows.ts on a task queue of their own, on the same
 * Temporal server as the service, run by a worker process of their own (./engineWorker.ts) and
 * driven through the Temporal client. (B3) runs its workflow on the same worker, driven over HTTP
 * through its own front (./floor.ts).
 */
import type { Client } from '@temporalio/client';
import { ulid } from 'ulid';
import { type Child, startChild } from './child';
import type { Recorder } from './stats';
import { benchLifecycleWorkflow, benchWebhookWorkflow, stepUpdate } from './workflows';

export function startEngineWorker(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  receiverUrl: string;
  receiverSecret: string;
  /** (B3)'s read-model table and its database, when the run has B3. */
  floor?: { databaseUrl: string; payments: string };
}): Promise<Child> {
  return startChild(
    'engine-worker',
    'scripts/bench/engineWorker.ts',
    {
      BENCH_TEMPORAL_ADDRESS: opts.address,
      BENCH_NAMESPACE: opts.namespace,
      BENCH_TASK_QUEUE: opts.taskQueue,
      BENCH_RECEIVER_URL: opts.receiverUrl,
      BENCH_RECEIVER_SECRET: opts.receiverSecret,
      BENCH_DATABASE_URL: opts.floor?.databaseUrl,
      BENCH_FLOOR_PAYMENTS: opts.floor?.payments,
    },
    async (output) => output().includes('ready'),
  );
}

const STEPS = [
  ['deposit', 'payment.deposited'],
  ['approve', 'payment.approved'],
  ['release', 'payment.released'],
] as const;

/**
 * start + three executeUpdate, named like the service's steps. With `webhooks` (B2) each answer's
 * time goes to `answered` under the receiver's key, as the service's do.
 */
export async function engineLifecycle(client: Client, taskQueue: string, rec: Recorder, answered?: Map<string, number>): Promise<string> {
  const started = performance.now();
  let t = started;
  const workflowId = `bench-${ulid()}`;
  const handle = await client.workflow.start(answered ? benchWebhookWorkflow : benchLifecycleWorkflow, { taskQueue, workflowId });
  rec.add('start', performance.now() - t);
  answered?.set(`${workflowId} payment.created`, performance.now());
  for (const [step, event] of STEPS) {
    t = performance.now();
    await handle.executeUpdate(stepUpdate, { args: [step] });
    rec.add(step, performance.now() - t);
    answered?.set(`${workflowId} ${event}`, performance.now());
  }
  rec.add('lifecycle', performance.now() - started);
  return handle.workflowId;
}

export const ENGINE_STEPS = ['start', 'deposit', 'approve', 'release'];
