/**
 * Configuration: read from the environment once, validated with zod, frozen.
 * A missing or malformed setting stops start-up with a message naming it.
 */
import path from 'node:path';
import ms from 'ms';
import { z } from 'zod';

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const value = ms(text.trim() as ms.StringValue);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        ctx.addIssue({ code: 'custom', message: `not a duration: "${text}" (use e.g. 250ms, 1 min, 2h)` });
        return z.NEVER;
      }
      return value;
    });

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const schema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: port(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
  TEMPORAL_DEV_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_CLI_PATH: z.string().optional(),
  DATA_DIR: z.string().min(1).default(path.resolve(__dirname, '..', '.data')),
  WORKER_METRICS_PORT: port(9464),
  SERVICE_JWT_SECRET: z.string().min(32, 'SERVICE_JWT_SECRET must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().positive().default(100),
  /** Behind a reverse proxy: take the client address from X-Forwarded-For (login limits use it). */
  TRUST_PROXY: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  PAYMENT_MAX_AMOUNT: z.coerce.number().int().positive().default(1_000_000_000),
  WEBHOOK_RETRY_INITIAL_INTERVAL: duration('1 min'),
  WEBHOOK_RETRY_BACKOFF: z.coerce.number().min(1).default(5),
  WEBHOOK_RETRY_MAX_INTERVAL: duration('2h'),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  WEBHOOK_TIMEOUT: duration('10s'),
});

export type Config = z.infer<typeof schema> & { SERVICE_JWT_SECRET: string };

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if (!config.SERVICE_JWT_SECRET) {
    if (config.NODE_ENV === 'production') throw new ConfigError('invalid configuration:\n  SERVICE_JWT_SECRET: required in production');
    // Development and tests: a fixed, clearly non-secret value keeps tokens valid across restarts.
    config.SERVICE_JWT_SECRET = 'dev-only-secret-change-me-in-production-0000';
  }
  return Object.freeze(config) as Config;
}

/** The database URL tests and tools use when none is given. */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://127.0.0.1:5432/test';
