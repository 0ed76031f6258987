/** The Temporal runtime of a worker process: logging and Core's metrics. */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../lib/logger';
import { setCoreMetricsUrl } from '../lib/metrics';
import { freePort } from '../lib/net';

const LEVELS: Record<string, LogLevel> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
};

/**
 * Install the Temporal runtime once per process: SDK, workflow and activity logs go to the same
 * JSON logger as the API, and Core's own worker metrics are exported for `/metrics` to include.
 * Resolves to the port Core's metrics listen on: a port of the stack's own, which no webhook may
 * reach (src/platform/stack.ts adds it to `stackPorts`; docs/security.md, "The stack's own ports").
 */
export async function installRuntime(logger: Logger): Promise<number> {
  const coreMetricsPort = await freePort();
  const bindAddress = `127.0.0.1:${coreMetricsPort}`;
  Runtime.install({
    logger: new DefaultLogger(LEVELS[logger.level] ?? 'INFO', ({ level, message, meta }) => {
      const method =
        level === 'TRACE' ? 'trace' : level === 'DEBUG' ? 'debug' : level === 'WARN' ? 'warn' : level === 'ERROR' ? 'error' : 'info';
      logger[method]({ ...meta, source: 'temporal' }, message);
    }),
    telemetryOptions: { metrics: { prometheus: { bindAddress } } },
  });
  setCoreMetricsUrl(`http://${bindAddress}/metrics`);
  return coreMetricsPort;
}
