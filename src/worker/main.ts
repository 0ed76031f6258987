/** `npm run worker`: a worker process; the SDK drains in-flight tasks on SIGTERM/SIGINT. */
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, requireSecrets } from '../config';
import { createDb } from '../db/knex';
import { createLogger } from '../lib/logger';
import { metricsServer } from '../lib/metrics';
import { listenOn } from '../lib/net';
import { runMain, type Started } from '../lib/startup';
import { installRuntime } from './runtime';
import { createWorker } from './worker';

async function main(started: Started) {
  // Signing deliveries needs the key that opens webhook secrets; the worker never signs tokens.
  const config = requireSecrets(loadConfig(), ['WEBHOOK_SECRET_KEY'], '`npm run worker`');
  const logger = createLogger(config.LOG_LEVEL);
  // Scrape target for this worker: activity metrics (transitions, deliveries) and Temporal's own,
  // on WORKER_METRICS_PORT.
  // Bound first, so a taken port is a start-up error before this process polls for any task.
  const metrics = metricsServer();
  const metricsPort = await listenOn(metrics, config.WORKER_METRICS_PORT, undefined, 'WORKER_METRICS_PORT');
  started.add(metrics, (m) => new Promise((resolve) => m.close(resolve)));
  await installRuntime(logger);
  const db = started.add(createDb(config.DATABASE_URL, config.DATA_DIR), (d) => d.destroy());
  const connection = started.add(await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' }), (c) =>
    c.close(),
  );
  const worker = await createWorker({ connection, db, config, logger });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, metricsPort }, 'worker running');
  await worker.run(); // the SDK's runtime shuts the worker down on SIGTERM/SIGINT and drains tasks
  metrics.close();
  logger.info('worker drained and stopped');
  await connection.close();
  await db.destroy();
}

runMain(main);
