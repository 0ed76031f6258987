/**
 * The worker of (B), (B2), (B3) and (B4), in a process of its own so that its CPU is measured apart
 * from the clients'. Spawned by ./engine.ts with its settings in BENCH_* variables (B3's and B4's
 * read-model table in BENCH_FLOOR_PAYMENTS); a second worker in the process serves B4's webhooks
 * task queue, as the service's process serves its own. Prints "ready" once both poll, and drains and
 * exits on SIGTERM.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createEngineActivities } from './engineActivities';
import { createFloorActivities } from './floorActivities';
import { webhookTaskQueue } from '../../src/webhooks/retrySchedule';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const connection = await NativeConnection.connect({ address: env('BENCH_TEMPORAL_ADDRESS') });
  const engine = createEngineActivities(env('BENCH_RECEIVER_URL'), env('BENCH_RECEIVER_SECRET'));
  const worker = await Worker.create({
    connection,
    namespace: env('BENCH_NAMESPACE'),
    taskQueue: env('BENCH_TASK_QUEUE'),
    workflowsPath: require.resolve('./workflows'),
    activities: {
      ...engine,
      ...createFloorActivities(engine, process.env.BENCH_DATABASE_URL, process.env.BENCH_FLOOR_PAYMENTS),
    },
  });
  const webhooks = await Worker.create({
    connection,
    namespace: env('BENCH_NAMESPACE'),
    taskQueue: webhookTaskQueue({ TEMPORAL_TASK_QUEUE: env('BENCH_TASK_QUEUE') }),
    activities: engine,
  });
  const running = Promise.all([worker.run(), webhooks.run()]);
  process.stdout.write('ready\n');
  await running;
  await connection.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
