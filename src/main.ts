/**
 * `npm start`: the whole stack on one machine. Starts a real Temporal dev server (unless
 * TEMPORAL_ADDRESS is set), migrates the database, runs a worker and the API in this process and
 * prints where everything is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { connectClient, startApiServer } from './bootstrap';
import { countAccounts, createAccount } from './db/accounts';
import { createDb, migrate } from './db/knex';
import { createLogger, resolveLogFormat } from './lib/logger';
import { loadConfigWithLocalSecrets } from './lib/localSecrets';
import { checkPortsFree } from './lib/net';
import { runMain, type Started } from './lib/startup';
import { startDevServer } from './lib/temporalDevServer';
import { installRuntime } from './worker/runtime';
import { createWorker } from './worker/worker';

const DEMO_EMAIL = 'demo@example.com';
const DEMO_FILE = 'demo.json';

interface Demo {
  email: string;
  password: string;
  test_api_key: string;
}

/**
 * The demo credentials: made on an empty database's first start and kept in DATA_DIR/demo.json
 * (mode 0600, like the other local secrets), so every later start shows them again.
 */
async function demoCredentials(dataDir: string, create: () => Promise<{ test_api_key: string } | undefined>): Promise<Demo | undefined> {
  const file = path.join(dataDir, DEMO_FILE);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Demo;
  const created = await create();
  if (!created) return undefined;
  const demo = { email: DEMO_EMAIL, password: DEMO_PASSWORD, test_api_key: created.test_api_key };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
const DEMO_PASSWORD = 'demo-password';

async function main(started: Started) {
  // SERVICE_JWT_SECRET and WEBHOOK_SECRET_KEY from the environment, else generated once under DATA_DIR.
  const config = loadConfigWithLocalSecrets();
  const format = resolveLogFormat(config.LOG_FORMAT);
  const logger = createLogger(config.LOG_LEVEL, format);
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
  // On a terminal the SDK's own chatter (the bundler's report, worker states) stays below warnings.
  await installRuntime(format === 'pretty' && logger.levelVal < 40 ? logger.child({}, { level: 'warn' }) : logger);
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
  const demo = await demoCredentials(config.DATA_DIR, async () =>
    (await countAccounts(db)) === 0 ? createAccount(db, DEMO_EMAIL, DEMO_PASSWORD) : undefined,
  );

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
  say(
    `  Database     ${config.DATABASE_URL ? config.DATABASE_URL.replace(/\/\/[^@]*@/, '//***@') : `embedded PGlite under ${path.relative(process.cwd(), path.join(config.DATA_DIR, 'pglite')) || '.'}`}`,
  );
  if (demo) {
    say(`  Demo login   ${demo.email} / ${demo.password}`);
    say(`  Test key     ${demo.test_api_key}   (also in ${path.join(config.DATA_DIR, DEMO_FILE)})`);
  } else say('  Accounts     this database had accounts before its first `npm start`: no demo account');
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
