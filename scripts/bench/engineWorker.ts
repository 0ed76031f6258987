/**
 * The worker of (B), (B2) and (B3), in a process of its own so that its CPU is measured apart from
 * the clients'. Spawned by ./engine.ts with its settings in BENCH_* variables (B3's read-model table
 * in BENCH_FLOOR_PAYMENTS); prints "ready" once it polls, and drains and exits on SIGTERM.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createEngineActivities } from './engineActivities';
import { createFloorActivities } from './floorActivities';

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
  const running = worker.run();
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
