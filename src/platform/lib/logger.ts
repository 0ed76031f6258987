/** The process logger (pino): JSON lines, or human-readable on a terminal. */
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

type LogFormat = 'json' | 'pretty';

/** `auto`: human-readable on a terminal, JSON lines otherwise (and always with LOG_FORMAT=json). */
export function resolveLogFormat(setting: 'auto' | LogFormat, isTTY = (process.stdout.isTTY as boolean | undefined) ?? false): LogFormat {
  return setting === 'auto' ? (isTTY ? 'pretty' : 'json') : setting;
}

/** Logs on stdout; every line about a request carries its `request_id`. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', format: LogFormat = 'json'): Logger {
  const options = { level, base: { service: 'payment-custody' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'json') return pino(options);
  return pino(options, pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' }));
}
export type { Logger };
