/**
 * `npm start`: the whole stack on one machine. Starts a real Temporal dev server (unless
 * TEMPORAL_ADDRESS is set), migrates the database, runs a worker and the API in this process and
 * prints where everything is.
 */
import path from 'node:path';
import { demoCredentials, DEMO_FILE } from './demo';
import { createLogger, resolveLogFormat } from './platform/lib/logger';
import { type Config, stackPorts } from './platform/config';
import { loadConfigWithLocalSecrets } from './localSecrets';
import { checkPortsFree } from './platform/lib/net';
import { exists, npmLaunchers, processesHolding } from './platform/lib/processes';
import { ConfigError, runMain, type Started } from './platform/lib/startup';
import { buildStack } from './platform/stack';
import { paymentsListUrl } from './platform/searchAttributes.rules';

async function main(started: Started) {
  // SERVICE_JWT_SECRET and WEBHOOK_SECRET_KEY from the environment, else generated once under DATA_DIR.
  // Receivers of a one-machine stack are on loopback: on here unless set (never the stack's own ports).
  const config = loadConfigWithLocalSecrets({ WEBHOOK_ALLOW_LOOPBACK: 'true', ...process.env });
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
  // Temporal's state under DATA_DIR is one dev server's at a time: a second one on the same file fails
  // (SQLITE_BUSY) or dies after it came up ("Failed to connect before the deadline"), so an earlier
  // `npm start` still running or still stopping, on any ports, is named instead (docs/operations.md).
  const temporalState = path.join(config.DATA_DIR, 'temporal.sqlite');
  if (!config.TEMPORAL_ADDRESS) {
    const holders = processesHolding(temporalState);
    if (holders.length > 0) {
      throw new ConfigError(
        [
          `Temporal's state ${temporalState} is open in ${holders.map((h) => `process ${h.pid} (${h.command})`).join(', ')}:`,
          '  another `npm start` on this DATA_DIR is still running or stopping. Stop it (Ctrl-C in its terminal,',
          `  or kill ${holders.map((h) => h.pid).join(' ')}) and start again, or give this one another DATA_DIR.`,
        ].join('\n'),
      );
    }
  }
  const say = (msg: string) => process.stdout.write(`${msg}\n`);
  const stack = started.add(
    await buildStack({
      config,
      logger,
      // On a terminal the SDK's own chatter (the bundler's report, worker states) stays below warnings.
      runtimeLogger: format === 'pretty' && logger.levelVal < 40 ? logger.child({}, { level: 'warn' }) : logger,
      devServer: config.TEMPORAL_ADDRESS
        ? undefined
        : {
            port: config.TEMPORAL_DEV_PORT,
            uiPort: config.TEMPORAL_UI_PORT,
            dbFilename: temporalState,
            log: say,
          },
      migrate: true,
      worker: {},
      api: { port: config.PORT, host: config.HOST },
    }),
    (s) => s.stop(),
  );
  const { db, devServer, temporalAddress: address } = stack;
  const api = stack.api!;
  const demo = await demoCredentials(config, db, stack.services.accounts);

  say('');
  const everywhere = config.HOST === '0.0.0.0' || config.HOST === '::' ? `   (HOST=${config.HOST}: on every interface)` : '';
  say(`  API          ${api.url}/api/v1   (reference: ${api.url}/docs)${everywhere}`);
  say(`  Metrics      ${api.metricsUrl}/metrics`);
  // The payments list, not the whole workflow list: the checks' schedules add a run every few minutes.
  say(
    `  Temporal UI  ${devServer?.uiUrl ? `${paymentsListUrl(devServer.uiUrl, config.TEMPORAL_NAMESPACE)}   (payments only)` : `(external cluster at ${address})`}`,
  );
  // Test and live apart; the columns are the browser's to keep (docs/operations.md, "Status, amount and mode as columns").
  if (devServer?.uiUrl) {
    for (const [mode, livemode] of [
      ['test', false],
      ['live', true],
    ] as const) {
      say(`               ${mode} payments only: ${paymentsListUrl(devServer.uiUrl, config.TEMPORAL_NAMESPACE, livemode)}`);
    }
  }
  say(
    `  Database     ${config.DATABASE_URL ? config.DATABASE_URL.replace(/\/\/[^@]*@/, '//***@') : `embedded PGlite under ${path.relative(process.cwd(), path.join(config.DATA_DIR, 'pglite')) || '.'}`}`,
  );
  say(webhooksLine(config));
  if (demo) {
    say(`  Demo login   ${demo.email} / ${demo.password}`);
    say(`  Test key     ${demo.test_api_key}   (also in ${path.join(config.DATA_DIR, DEMO_FILE)})`);
    // Live mode moves real money's records: the key is shown as the test key is, with where to read first.
    say(
      demo.live_api_key
        ? `  Live key     ${demo.live_api_key}   (also in ${path.join(config.DATA_DIR, DEMO_FILE)}; live mode: docs/quickstart.md, "Live mode")`
        : '  Live key     not kept for this older demo account: create one with POST /api/v1/api-keys and X-Service-Mode: live (docs/quickstart.md, "Live mode")',
    );
  } else say('  Accounts     this database had accounts before its first `npm start` here: no demo account');
  say('');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  // A signal sent to npm alone (`kill <npm's pid>`) never reaches this process: npm exits, its `sh -c`
  // with it, and the stack would go on holding its ports, its database and Temporal's state. So the
  // stack also stops when the npm that started it is gone (docs/operations.md).
  const launchers = npmLaunchers();
  if (launchers.length > 0) {
    setInterval(() => {
      const gone = launchers.find((pid) => !exists(pid));
      if (gone === undefined || stopping) return;
      logger.warn({ pid: gone }, 'the npm that started this stack has exited: stopping');
      void stop();
    }, 1000).unref();
  }
  await stack.workerRunning;
}

runMain(main);

/** The banner's webhooks line: which loopback ports a test webhook may reach, and how to list one (docs/security.md). */
function webhooksLine(config: Config): string {
  if (!config.WEBHOOK_ALLOW_LOOPBACK) return '  Webhooks     https to public addresses only (WEBHOOK_ALLOW_LOOPBACK=false)';
  const listed = config.WEBHOOK_LOOPBACK_PORTS.map(([low, high]) => (low === high ? String(low) : `${low}-${high}`)).join(',');
  return listed
    ? `  Webhooks     test mode may target loopback ports ${listed}, plain http too (WEBHOOK_LOOPBACK_PORTS=${listed}), never this stack's ${stackPorts(config).size} ports`
    : "  Webhooks     test mode may target no loopback port yet: list your receiver's (WEBHOOK_LOOPBACK_PORTS=4000 for the quickstart's)";
}
