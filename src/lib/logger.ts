import pino, { type Logger } from 'pino';

/** JSON logs on stdout; every line about a request carries its `request_id`. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'payment-custody' }, timestamp: pino.stdTimeFunctions.isoTime });
}
export type { Logger };
