import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createActivities } from '../activities';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';

/** Production bundle written by `npm run build:workflows`; without it the worker bundles at start. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../dist/workflow-bundle.js');

export interface WorkerDeps {
  connection: NativeConnection;
  db: Knex;
  config: Config;
  logger: Logger;
  taskQueue?: string;
  workflowBundlePath?: string;
}

/** Wiring only: the workflows, the activities with their dependencies, the task queue. */
export async function createWorker({ connection, db, config, logger, taskQueue, workflowBundlePath }: WorkerDeps): Promise<Worker> {
  const bundle = workflowBundlePath ?? (fs.existsSync(WORKFLOW_BUNDLE_PATH) ? WORKFLOW_BUNDLE_PATH : undefined);
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: taskQueue ?? config.TEMPORAL_TASK_QUEUE,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath: path.resolve(__dirname, '../workflows') }),
    activities: createActivities({ db, config, logger }),
    shutdownGraceTime: '10 seconds',
  });
}
