/**
 * The one stack builder. `npm start`, `npm run api`, `npm run worker`, the scripts and the tests
 * each ask for the parts they run (a dev server, migrations, a worker, the API), and get them
 * wired the same way and stopped the same way: newest first, also when start-up fails half-way.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Knex } from 'knex';
import { startApiServer, type ApiServer } from './http/server';
import { type Config, addStackPorts } from './config';
import { createDb, migrate } from './database/knex';
import { SEARCH_ATTRIBUTE_TYPES } from './searchAttributes.rules';
import type { Logger } from './lib/logger';
import { Started } from './lib/startup';
import {
  DEFAULT_TEMPORAL_ADDRESS,
  type TemporalTarget,
  TemporalUnreachable,
  temporalTarget,
  temporalUnreachable,
} from './lib/temporalTarget';
import { type DevServer, type DevServerOptions, setFairnessKeyRateLimit, startDevServer } from './lib/temporalDevServer';
import { createServices, type Services } from './services';
import { installRuntime } from './worker/runtime';
import { type PaymentWorkers, createWorker } from './worker/workers';
import { dataConverter } from './worker/dataConverter';
import { ensureBankInboxSchedule, ensureLedgerSchedule, ensurePayoutBatchSchedule } from './worker/schedules';
import { ledgerCheckLastSuccess } from '../ledger/ledgerCheck.repository';
import { ledgerVerifyInterval, ledgerVerifyLastSuccess, reportReconciliationsFrom } from './lib/metrics';
import { reconciliationGauges } from '../reconciliation/reconciliations.repository';
import { webhookTaskQueue } from '../webhooks/retrySchedule';

export type { ApiServer, Services };

export { DEFAULT_TEMPORAL_ADDRESS, type TemporalTarget, TemporalUnreachable, temporalTarget, temporalUnreachable };

interface StackParts {
  config: Config;
  logger: Logger;
  /** The logger the Temporal SDK's runtime logs through (once per process); default `logger`. */
  runtimeLogger?: Logger;
  /** Start a Temporal dev server here, instead of connecting to TEMPORAL_ADDRESS. */
  devServer?: Omit<DevServerOptions, 'namespace'>;
  /** Apply the knex migrations before anything uses the database. */
  migrate?: boolean;
  /** Run the payments and webhook workers in this process. */
  worker?: { taskQueue?: string; workflowBundlePath?: string };
  /** Serve the API (and its /metrics listener) in this process. */
  api?: { port: number; host?: string };
}

export interface Stack {
  config: Config;
  db: Knex;
  temporalAddress: string;
  client: Client;
  services: Services;
  devServer?: DevServer;
  api?: ApiServer;
  /** Settles when the worker stops (shutdown, or a fatal error); undefined without a worker. */
  workerRunning?: Promise<void>;
  /** Stop this process's worker only (the API stays up), as when every worker is down. */
  stopWorker(): Promise<void>;
  /** A new worker in place of a stopped one. */
  startWorker(): Promise<void>;
  /** Stop everything this stack started, newest first. */
  stop(): Promise<void>;
}

/** The process's Temporal runtime, installed once: resolves to Core's metrics port. */
let runtime: Promise<number> | undefined;

/** A client of the server at `target`, or TemporalUnreachable naming it. */
export async function connectClient(target: TemporalTarget, namespace: string, connectTimeoutMs?: number): Promise<Client> {
  try {
    const connection = await Connection.connect({
      address: target.address,
      ...(connectTimeoutMs ? { connectTimeout: connectTimeoutMs } : {}),
    });
    return new Client({ connection, namespace, dataConverter });
  } catch (err) {
    throw temporalUnreachable(target, err);
  }
}

export async function buildStack(parts: StackParts): Promise<Stack> {
  const { config, logger } = parts;
  const started = new Started();
  try {
    // Opened (and, when embedded, locked) before the dev server, whose state may live in the same DATA_DIR.
    const db = started.add(createDb(config.DATABASE_URL, config.DATA_DIR), (d) => d.destroy());
    if (parts.worker) {
      runtime ??= installRuntime(parts.runtimeLogger ?? logger);
      // Core's metrics listener is one of this process's ports: no webhook may reach it.
      addStackPorts(config, [await runtime]);
    }
    const devServer = parts.devServer
      ? started.add(
          await startDevServer({ searchAttributes: SEARCH_ATTRIBUTE_TYPES, ...parts.devServer, namespace: config.TEMPORAL_NAMESPACE }),
          (s) => s.stop(),
        )
      : undefined;
    // Every port of the dev server, its internal ones included, is the stack's own: no webhook reaches it.
    if (devServer) addStackPorts(config, devServer.ports);
    const target: TemporalTarget = devServer
      ? { address: devServer.address, setting: `TEMPORAL_DEV_PORT=${parts.devServer!.port}, the dev server this process started` }
      : temporalTarget(config, 'default');
    const temporalAddress = target.address;
    if (parts.migrate) await migrate(db);

    // The dev server may have exited since it answered (its state file held by another process, say): its words then say why.
    const devServerEnd = () => {
      const end = devServer?.exited?.();
      return end ? `; the dev server ${end}` : '';
    };
    const client = started.add(
      await connectClient(target, config.TEMPORAL_NAMESPACE).catch((err: unknown) => {
        throw err instanceof TemporalUnreachable && devServerEnd() ? new TemporalUnreachable(err.message + devServerEnd()) : err;
      }),
      (c) => c.connection.close(),
    );
    let worker: PaymentWorkers | undefined;
    let workerRunning: Promise<void> | undefined;
    const stopWorker = async () => {
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await workerRunning?.catch(() => undefined);
    };
    let startWorker = () => Promise.resolve();
    if (parts.worker) {
      const { taskQueue, workflowBundlePath } = parts.worker;
      const connection = started.add(
        await NativeConnection.connect({ address: temporalAddress }).catch((err: unknown) => {
          throw temporalUnreachable(target, err, devServerEnd());
        }),
        (c) => c.close(),
      );
      startWorker = async () => {
        const next = await createWorker({ connection, db, config, logger, taskQueue, workflowBundlePath });
        const running = next.run();
        [worker, workerRunning] = [next, running];
        // Until its version is current, no payment task reaches it: wait for that (or for the worker's end).
        try {
          await Promise.race([next.makeCurrent(), running.then(() => Promise.reject(new Error('the worker stopped while starting')))]);
        } catch (err) {
          next.shutdown();
          await running.catch(() => undefined);
          throw err;
        }
      };
      await startWorker();
      started.add(undefined, stopWorker);
      const queue = taskQueue ?? config.TEMPORAL_TASK_QUEUE;
      // Created, or brought to this worker's settings (docs/settings.md): what the schedule runs is what the gauge says.
      const ledgerEvery = await ensureLedgerSchedule(client, { taskQueue: queue, intervalMs: config.LEDGER_VERIFY_INTERVAL, logger });
      await ensurePayoutBatchSchedule(client, { taskQueue: queue, intervalMs: config.PAYOUT_BATCH_INTERVAL, logger });
      await ensureBankInboxSchedule(client, { taskQueue: queue, intervalMs: config.BANK_INBOX_INTERVAL, logger });
      // The engine paces each tenant's deliveries (docs/webhooks.md, "No tenant slows another"); the
      // compose topology sets the same on its server (deploy/temporal/register-search-attributes.sh).
      if (devServer)
        await setFairnessKeyRateLimit({
          address: devServer.address,
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: webhookTaskQueue({ TEMPORAL_TASK_QUEUE: queue }),
          rps: config.WEBHOOK_FAIRNESS_KEY_RPS,
          reason: 'WEBHOOK_FAIRNESS_KEY_RPS',
        });
      // The staleness alert's inputs, from the schedule and the check's own record: a restarted worker reports its real age.
      ledgerVerifyInterval.set(ledgerEvery / 1000);
      ledgerVerifyLastSuccess.set((await ledgerCheckLastSuccess(db, queue)).getTime() / 1000);
      // Likewise the reconciliation's gauges, read from the stored results at each scrape (docs/reconciliation.md).
      reportReconciliationsFrom(() => reconciliationGauges(db));
    }

    const services = createServices({ db, temporal: client, config, logger });
    // The custody trail's head-signing schedule, for the queue this worker polls (idempotent), and the
    // public half of its key, which the API serves (only workers hold the signing key).
    if (parts.worker && config.AUDIT_SIGNING_KEY) {
      await services.audit.publishKey(config.AUDIT_SIGNING_KEY);
      await services.audit.ensureSchedule(parts.worker.taskQueue ?? config.TEMPORAL_TASK_QUEUE);
    }
    let api: ApiServer | undefined;
    if (parts.api) {
      api = started.add(await startApiServer({ services, config, logger }, parts.api.port, parts.api.host), (a) => a.close());
      // The ports actually bound (0 in a setting means any free one).
      addStackPorts(
        config,
        [api.url, api.metricsUrl].map((u) => Number(new URL(u).port)),
      );
      // Idempotency keys live 24 hours: forget expired ones at start and hourly (claims also delete
      // the oldest in passing), and the open-payment claims whose creates died.
      const purgeExpired = () => {
        services.idempotency.purgeExpired().catch((err: unknown) => logger.warn({ err }, 'purging expired idempotency keys failed'));
        services.payments.purgeStaleClaims().catch((err: unknown) => logger.warn({ err }, 'purging stale open-payment claims failed'));
      };
      purgeExpired();
      const purge = setInterval(purgeExpired, 3600_000).unref();
      started.add(purge, clearInterval);
    }

    return {
      config,
      db,
      temporalAddress,
      client,
      services,
      devServer,
      api,
      get workerRunning() {
        return workerRunning;
      },
      stopWorker,
      startWorker,
      stop: () => started.stopAll(),
    };
  } catch (err) {
    await started.stopAll();
    throw err;
  }
}
