/** `npm run worker`: a worker process; the SDK drains in-flight tasks on SIGTERM/SIGINT. */
import http from 'node:http';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, requireSecrets } from '../config';
import { createDb } from '../db/knex';
import { createLogger } from '../lib/logger';
import { registry, renderMetrics } from '../lib/metrics';
import { exitOnStartupError } from '../lib/startup';
import { installRuntime } from './runtime';
import { createWorker } from './worker';

async function main() {
  // Signing deliveries needs the key that opens webhook secrets; the worker never signs tokens.
  const config = requireSecrets(loadConfig(), ['WEBHOOK_SECRET_KEY'], '`npm run worker`');
  const logger = createLogger(config.LOG_LEVEL);
  await installRuntime(logger);
  const db = createDb(config.DATABASE_URL, config.DATA_DIR);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const worker = await createWorker({ connection, db, config, logger });
  // Scrape target for this worker: activity metrics (transitions, deliveries) and Temporal's own.
  const metrics = http
    .createServer(async (req, res) => {
      if (req.url === '/metrics') {
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(await renderMetrics());
      } else res.writeHead(req.url === '/healthz' ? 200 : 404).end();
    })
    .listen(config.WORKER_METRICS_PORT);
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, metricsPort: config.WORKER_METRICS_PORT }, 'worker running');
  await worker.run(); // the SDK's runtime shuts the worker down on SIGTERM/SIGINT and drains tasks
  metrics.close();
  logger.info('worker drained and stopped');
  await connection.close();
  await db.destroy();
}

main().catch(exitOnStartupError);
