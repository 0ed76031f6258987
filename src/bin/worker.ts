/** `npm run worker`: a worker process; the SDK drains in-flight tasks on SIGTERM/SIGINT. */
import { addStackPorts, loadConfig, requireSecrets } from '../platform/config';
import { createLogger } from '../platform/lib/logger';
import { metricsServer } from '../platform/lib/metrics';
import { listenOn } from '../platform/lib/net';
import { runMain, type Started } from '../platform/lib/startup';
import { buildStack } from '../platform/stack';

async function main(started: Started) {
  // Signing deliveries needs the key that opens webhook secrets, and tree heads the audit key;
  // the worker never signs tokens.
  const config = requireSecrets(loadConfig(), ['WEBHOOK_SECRET_KEY', 'AUDIT_SIGNING_KEY'], '`npm run worker`');
  const logger = createLogger(config.LOG_LEVEL);
  // Scrape target for this worker (activity metrics and Temporal's own) on WORKER_METRICS_PORT,
  // bound first, so a taken port is a start-up error before this process polls for any task; on
  // HOST, as the API's listeners, so that it is off other interfaces unless HOST says otherwise.
  const metrics = metricsServer();
  const metricsPort = await listenOn(metrics, config.WORKER_METRICS_PORT, config.HOST, 'WORKER_METRICS_PORT');
  started.add(metrics, (m) => new Promise((resolve) => m.close(resolve)));
  addStackPorts(config, [metricsPort]); // bound as 0: any free port, still one no webhook may target
  const stack = started.add(await buildStack({ config, logger, worker: {} }), (s) => s.stop());
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, metricsHost: config.HOST, metricsPort }, 'worker running');
  await stack.workerRunning; // the SDK's runtime shuts the worker down on SIGTERM/SIGINT and drains tasks
  logger.info('worker drained and stopped');
  await started.stopAll();
}

runMain(main);
