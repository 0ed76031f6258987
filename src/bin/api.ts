/** `npm run api`: the HTTP API alone, against TEMPORAL_ADDRESS and DATABASE_URL. */
import { loadConfig, requireSecrets } from '../platform/config';
import { createLogger } from '../platform/lib/logger';
import { runMain, type Started } from '../platform/lib/startup';
import { buildStack } from '../platform/stack';

async function main(started: Started) {
  // Only workers sign the custody trail: the API serves the public key they publish, and drops the
  // signing key should its environment carry one by mistake.
  delete process.env.AUDIT_SIGNING_KEY;
  const config = requireSecrets(loadConfig(), ['SERVICE_JWT_SECRET', 'WEBHOOK_SECRET_KEY'], '`npm run api`');
  const logger = createLogger(config.LOG_LEVEL);
  const stack = started.add(await buildStack({ config, logger, api: { port: config.PORT, host: config.HOST } }), (s) => s.stop());
  const api = stack.api!;
  logger.info({ url: api.url, metrics: `${api.metricsUrl}/metrics` }, 'API listening');
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    await stack.stop();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

runMain(main);
