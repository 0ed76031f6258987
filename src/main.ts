/**
 * `npm start`: the whole stack on one machine. Starts a real Temporal dev server (unless
 * TEMPORAL_ADDRESS is set), migrates the database, runs a worker and the API in this process and
 * prints where everything is.
 */
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { connectClient, startApiServer } from './bootstrap';
import { countAccounts, createAccount } from './db/accounts';
import { createDb, migrate } from './db/knex';
import { createLogger } from './lib/logger';
import { loadConfigWithLocalSecrets } from './lib/localSecrets';
import { checkPortsFree } from './lib/net';
import { runMain, type Started } from './lib/startup';
import { startDevServer } from './lib/temporalDevServer';
import { installRuntime } from './worker/runtime';
import { createWorker } from './worker/worker';

const DEMO_EMAIL = 'demo@example.com';
const DEMO_PASSWORD = 'demo-password';

async function main(started: Started) {
  // SERVICE_JWT_SECRET and WEBHOOK_SECRET_KEY from the environment, else generated once under DATA_DIR.
  const config = loadConfigWithLocalSecrets();
  const logger = createLogger(config.LOG_LEVEL);
  // Before anything starts: a taken port would otherwise fail half-way, or attach to a stranger's server.
  await checkPortsFree([
    { setting: 'PORT', port: config.PORT, host: config.HOST },
    ...(config.TEMPORAL_ADDRESS
      ? []
      : [
          { setting: 'TEMPORAL_DEV_PORT', port: config.TEMPORAL_DEV_PORT, host: '127.0.0.1' },
          { setting: 'TEMPORAL_UI_PORT', port: config.TEMPORAL_UI_PORT, host: '127.0.0.1' },
        ]),
    ...(config.API_METRICS_PORT ? [{ setting: 'API_METRICS_PORT', port: config.API_METRICS_PORT, host: config.HOST }] : []),
  ]);
  // Opened (and, when embedded, locked) before the dev server, whose state lives in the same DATA_DIR.
  const db = started.add(createDb(config.DATABASE_URL, config.DATA_DIR), (d) => d.destroy());
  await installRuntime(logger);
  const say = (msg: string) => process.stdout.write(`${msg}\n`);

  const devServer = config.TEMPORAL_ADDRESS
    ? undefined
    : started.add(
        await startDevServer({
          port: config.TEMPORAL_DEV_PORT,
          uiPort: config.TEMPORAL_UI_PORT,
          namespace: config.TEMPORAL_NAMESPACE,
          dbFilename: path.join(config.DATA_DIR, 'temporal.sqlite'),
          log: say,
        }),
        (server) => server.stop(),
      );
  const address = config.TEMPORAL_ADDRESS ?? devServer!.address;

  await migrate(db);
  let demo: Awaited<ReturnType<typeof createAccount>> | undefined;
  if ((await countAccounts(db)) === 0) demo = await createAccount(db, DEMO_EMAIL, DEMO_PASSWORD);

  const connection = started.add(await NativeConnection.connect({ address }), (c) => c.close());
  const worker = await createWorker({ connection, db, config, logger });
  const running = worker.run();
  started.add(worker, async (w) => {
    if (w.getState() === 'RUNNING') w.shutdown();
    await running.catch(() => undefined);
  });
  const temporal = started.add(await connectClient(address, config.TEMPORAL_NAMESPACE), (t) => t.connection.close());
  const api = started.add(await startApiServer({ db, temporal, config, logger }, config.PORT, config.HOST), (a) => a.close());

  say('');
  say(`  API          ${api.url}/api/v1   (reference: ${api.url}/docs)`);
  say(`  Metrics      ${api.metricsUrl}/metrics`);
  say(`  Temporal UI  ${devServer?.uiUrl ?? '(external cluster at ' + address + ')'}`);
  say(`  Database     ${config.DATABASE_URL ? config.DATABASE_URL.replace(/\/\/[^@]*@/, '//***@') : `embedded PGlite under ${path.relative(process.cwd(), path.join(config.DATA_DIR, 'pglite')) || '.'}`}`);
  if (demo) {
    say(`  Demo login   ${DEMO_EMAIL} / ${DEMO_PASSWORD}`);
    say(`  Test key     ${demo.test_api_key}`);
  } else say(`  Demo login   ${DEMO_EMAIL} / ${DEMO_PASSWORD} (created on first start)`);
  say('');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await api.close();
    // The Temporal runtime may already be draining the worker on this same signal.
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await temporal.connection.close();
    await connection.close();
    await db.destroy();
    await devServer?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await running;
}

runMain(main);
