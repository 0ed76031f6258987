/**
 * (B) The engine ceiling: the trivial workflow of ./workflows.ts on a task queue and worker of its
 * own, on the same dev server, started and driven through the Temporal client.
 */
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ulid } from 'ulid';
import type { Recorder } from './stats';
import { benchLifecycleWorkflow, stepUpdate } from './workflows';

export async function createEngineWorker(
  address: string,
  namespace: string,
  taskQueue: string,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
  });
  return { worker, connection };
}

/** start + three executeUpdate, named like the service's steps. */
export async function engineLifecycle(client: Client, taskQueue: string, rec: Recorder): Promise<string> {
  const started = performance.now();
  let t = started;
  const handle = await client.workflow.start(benchLifecycleWorkflow, { taskQueue, workflowId: `bench-${ulid()}` });
  rec.add('start', performance.now() - t);
  for (const step of ['deposit', 'approve', 'release']) {
    t = performance.now();
    await handle.executeUpdate(stepUpdate, { args: [step] });
    rec.add(step, performance.now() - t);
  }
  rec.add('lifecycle', performance.now() - started);
  return handle.workflowId;
}

export const ENGINE_STEPS = ['start', 'deposit', 'approve', 'release'];
