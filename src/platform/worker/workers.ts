/** The Temporal workers of one process: payments and webhook deliveries, each on its task queue. */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type State, type WorkerDeploymentOptions } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createActivities, webhookTaskQueue } from '../activities';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';
import { DEFAULT_VERSIONING_BEHAVIOR, makeVersionCurrent, workerVersion } from './versioning';
import { PAYLOAD_CONVERTER_PATH, dataConverter } from './dataConverter';

/** Production bundle written by `npm run build:workflows`; without it the worker bundles at start. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../../dist/workflow-bundle.js');

interface WorkerDeps {
  connection: NativeConnection;
  db: Knex;
  config: Config;
  logger: Logger;
  taskQueue?: string;
  workflowBundlePath?: string;
}

/** A delivery's activities, which only the webhooks worker runs. */
const DELIVERY_ACTIVITIES = new Set(['deliverWebhook', 'endSeries']);

/** The payments worker and the webhook delivery worker of one process, run and stopped as one. */
export interface PaymentWorkers {
  run(): Promise<void>;
  shutdown(): void;
  getState(): State;
  /** Once `run()` polls: make this version current (docs/architecture.md); at once when unversioned. */
  makeCurrent(): Promise<void>;
}

/** The workflow code the workers run: the production bundle, or one bundled now from src/platform/workflows.workflow.ts. */
async function workflowCode(bundlePath: string | undefined): Promise<string> {
  if (bundlePath) return fs.promises.readFile(bundlePath, 'utf8');
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../workflows.workflow.ts'),
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    logger: Runtime.instance().logger,
  });
  return code;
}

/**
 * Wiring only. Payments (workflows and their publication activity) poll the payments task queue;
 * every delivery series (its workflow and its one attempt activity) polls a queue of its own, so a
 * slow receiver never takes a slot a transition or a projection needs (docs/webhooks.md, "One road").
 */
export async function createWorker({ connection, db, config, logger, taskQueue, workflowBundlePath }: WorkerDeps): Promise<PaymentWorkers> {
  const bundle = workflowBundlePath ?? (fs.existsSync(WORKFLOW_BUNDLE_PATH) ? WORKFLOW_BUNDLE_PATH : undefined);
  // Payouts' activities start their deliveries' workflows through the worker's own connection.
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
  const activities = createActivities({ db, config, logger, temporal });
  // Every delivery's attempts run on the webhooks task queue alone (docs/webhooks.md, "One road").
  const paymentActivities = Object.fromEntries(Object.entries(activities).filter(([name]) => !DELIVERY_ACTIVITIES.has(name)));
  const queue = taskQueue ?? config.TEMPORAL_TASK_QUEUE;
  // One bundle for both workers, whose hash is the build id (src/platform/worker/versioning.ts).
  const code = await workflowCode(bundle);
  const version = workerVersion(config, queue, code);
  const workerDeploymentOptions: WorkerDeploymentOptions | undefined = version && {
    version,
    useWorkerVersioning: true,
    defaultVersioningBehavior: DEFAULT_VERSIONING_BEHAVIOR,
  };
  const workflows = { workflowBundle: { code }, workerDeploymentOptions, dataConverter };
  const payments = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: queue,
    ...workflows,
    activities: paymentActivities,
    // A worker that dies holding a payment in its cache costs the next transition this long before
    // another worker takes over (the SDK's default, 10 s, equals a request's whole deadline).
    stickyQueueScheduleToStartTimeout: '1 second',
    shutdownGraceTime: '10 seconds',
  });
  const webhooks = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: webhookTaskQueue({ TEMPORAL_TASK_QUEUE: queue }),
    ...workflows,
    // A delivery's activities: its attempts and its series' end.
    activities: { deliverWebhook: activities.deliverWebhook.bind(activities), endSeries: activities.endSeries.bind(activities) },
    // Bounded: a flood of slow receivers holds at most this many attempts of this process at once;
    // the rest wait in Temporal's queue, dispatched tenant by tenant (docs/webhooks.md).
    maxConcurrentActivityTaskExecutions: config.WEBHOOK_WORKER_SLOTS,
    shutdownGraceTime: '10 seconds',
  });
  const both = [payments, webhooks];
  const run = () => Promise.all(both.map((w) => w.run())).then(() => undefined);
  return {
    run,
    shutdown: () => both.forEach((w) => w.getState() === 'RUNNING' && w.shutdown()),
    getState: () => payments.getState(),
    makeCurrent: async () => {
      if (version)
        await makeVersionCurrent(temporal, version, logger, { stopped: () => !['INITIALIZED', 'RUNNING'].includes(payments.getState()) });
    },
  };
}
