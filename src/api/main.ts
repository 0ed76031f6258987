/** `npm run api`: the HTTP API alone, against TEMPORAL_ADDRESS and DATABASE_URL. */
import { connectClient, startApiServer } from '../bootstrap';
import { loadConfig, requireSecrets } from '../config';
import { createDb } from '../db/knex';
import { createLogger } from '../lib/logger';
import { exitOnStartupError } from '../lib/startup';

async function main() {
  const config = requireSecrets(loadConfig(), ['SERVICE_JWT_SECRET', 'WEBHOOK_SECRET_KEY'], '`npm run api`');
  const logger = createLogger(config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL, config.DATA_DIR);
  const temporal = await connectClient(config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233', config.TEMPORAL_NAMESPACE);
  const api = await startApiServer({ db, temporal, config, logger }, config.PORT, config.HOST);
  logger.info({ url: api.url, metrics: `${api.metricsUrl}/metrics` }, 'API listening');
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    await api.close();
    await temporal.connection.close();
    await db.destroy();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch(exitOnStartupError);
