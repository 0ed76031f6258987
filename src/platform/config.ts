/**
 * Configuration: read from the environment once, validated with zod, frozen.
 * A missing or malformed setting stops start-up with a message naming it.
 */
import { type KeyObject, hkdfSync } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { privateKeyFromSeed } from '../audit/ed25519';
import { payoutSettings } from './lib/payoutSettings';
import { duration, flag, parseSecretKey, port, portList, portRanges } from './lib/settingValues';
import { ConfigError } from './lib/startup';
import { temporalSettings } from './lib/temporalSettings';

/** A PostgreSQL role's name as the migrate step grants to it (unquoted SQL identifier rules), or unset. */
const roleName = () =>
  z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a PostgreSQL role name: lower-case letters, digits and _, at most 63')
    .optional();

const schema = z.object({
  /** Read for the libraries that look at it; it changes no security default of this service (docs/security.md). */
  NODE_ENV: z.string().default('development'),
  PORT: port(3000),
  /** Where the API and its /metrics listen: loopback unless told otherwise (containers set 0.0.0.0). */
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.url().optional(),
  /**
   * The compose topology's database roles (docs/security.md, "Database roles"): the migrate step grants
   * the API's everything but writing the custody trail, the workers' every table. Unset: no grants.
   */
  DATABASE_API_ROLE: roleName(),
  DATABASE_WORKER_ROLE: roleName(),
  ...temporalSettings,
  DATA_DIR: z
    .string()
    .min(1)
    .default(path.resolve(__dirname, '..', '..', '.data')),
  WORKER_METRICS_PORT: port(9464),
  /** The API process serves /metrics here, never on the public PORT (0: an ephemeral port). */
  API_METRICS_PORT: port(9465),
  /** Signs bearer tokens. Required by `npm run api`; `npm start` keeps a generated one under DATA_DIR. */
  SERVICE_JWT_SECRET: z
    .string()
    .min(32, 'SERVICE_JWT_SECRET must be at least 32 characters')
    .refine(
      (v) => v !== 'dev-only-secret-change-me-in-production-0000',
      'this value is public; generate one (e.g. `openssl rand -base64 48`)',
    )
    .optional(),
  /** Encrypts webhook secrets at rest. Required by `npm run api` and `npm run worker`; `npm start` generates one. */
  WEBHOOK_SECRET_KEY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === '') return undefined;
      const key = parseSecretKey(text);
      if (!key) {
        ctx.addIssue({ code: 'custom', message: 'must be 32 random bytes as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)' });
        return z.NEVER;
      }
      return key;
    }),
  /**
   * Signs the custody trail's tree heads: an Ed25519 seed, 32 random bytes as base64 or hex.
   * Required by `npm run worker` (never read by `npm run api`, which serves the public key the
   * workers publish); `npm start` generates one under DATA_DIR.
   */
  AUDIT_SIGNING_KEY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === '') return undefined;
      const seed = parseSecretKey(text);
      if (!seed) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be an Ed25519 seed: 32 random bytes as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)',
        });
        return z.NEVER;
      }
      return privateKeyFromSeed(seed);
    }),
  /** How often the Temporal Schedule signs a tree head. */
  AUDIT_HEAD_INTERVAL: duration('1 min').refine((v) => v >= 1000, 'AUDIT_HEAD_INTERVAL must be at least 1s'),
  /** Test-mode webhooks may target loopback (plain http too), only on WEBHOOK_LOOPBACK_PORTS. Off unless set; `npm start` sets it. */
  WEBHOOK_ALLOW_LOOPBACK: flag(false),
  /**
   * The loopback ports a test-mode webhook may reach while WEBHOOK_ALLOW_LOOPBACK is on: ports and
   * runs (`4000,4100-4199`), none unless listed; a port of the stack's own never, even listed
   * (docs/security.md, "Loopback only to the ports listed").
   */
  WEBHOOK_LOOPBACK_PORTS: portRanges(),
  /**
   * Ports this stack's processes listen on that no other setting names (a Temporal server's internal
   * ports, other replicas'): no webhook may target them (docs/security.md, "The stack's own ports").
   */
  STACK_PORTS: portList(),
  /** Failed authentications (bad API key or token) allowed per client address and minute; then 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** auto: human-readable on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Requests a second per credential, and per account and mode whatever the credential (docs/security.md). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().positive().default(100),
  /** Behind a reverse proxy: take the client address from X-Forwarded-For (login limits use it). */
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** How many proxies of ours append to X-Forwarded-For: the client is that many entries from the right. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  /** Login attempts a minute per client address. */
  LOGIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** Failed logins a minute per e-mail and client address. */
  LOGIN_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** Failed logins an hour per e-mail, from all addresses together. */
  LOGIN_FAILURES_PER_EMAIL_PER_HOUR: z.coerce.number().int().positive().default(50),
  /** Password hashes (scrypt, 128 MiB each) computed at once; libuv's pool has 4 threads. */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Logins that may wait for a hash; beyond, 429 with Retry-After. */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).default(8),
  /** Webhook configurations per account and mode. */
  MAX_WEBHOOKS_PER_ACCOUNT: z.coerce.number().int().positive().default(16),
  /** Active (not revoked) API keys per account and mode. */
  MAX_API_KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(20),
  /** Open (not released, cancelled or refunded) live payments per account; then 409 `open_payment_limit_reached`. */
  MAX_OPEN_PAYMENTS_LIVE: z.coerce.number().int().positive().default(1_000_000),
  /** Open test payments per account; then 409 `open_payment_limit_reached`. */
  MAX_OPEN_PAYMENTS_TEST: z.coerce.number().int().positive().default(10_000),
  /** `POST /webhooks/:id/test` per configuration and clock hour; then 409 `test_send_limit_reached`. */
  MAX_TEST_SENDS_PER_WEBHOOK_HOUR: z.coerce.number().int().positive().default(60),
  /**
   * `POST /webhooks/:id/test` per account and mode and clock hour, all its configurations together,
   * deleted ones included (a new configuration is no fresh budget); then 409 `test_send_limit_reached`.
   */
  MAX_TEST_SENDS_PER_ACCOUNT_HOUR: z.coerce.number().int().positive().default(60),
  /** A configuration with more deliveries not yet ended is disabled (`disabled_reason: "backlog"`). */
  MAX_PENDING_DELIVERIES_PER_WEBHOOK: z.coerce.number().int().positive().default(10_000),
  /** How long a dispute's respondent has to answer before it is decided for the party that opened it (docs/concepts.md, "Disputes"). */
  DISPUTE_RESPONSE_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600),
  PAYMENT_MAX_AMOUNT: z.coerce.number().int().positive().default(1_000_000_000),
  WEBHOOK_RETRY_INITIAL_INTERVAL: duration('1 min'),
  WEBHOOK_RETRY_BACKOFF: z.coerce.number().min(1).default(5),
  WEBHOOK_RETRY_MAX_INTERVAL: duration('2h'),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  WEBHOOK_TIMEOUT: duration('10s'),
  /** A configuration whose every delivery failed for this long is disabled (Svix: 5 days). */
  WEBHOOK_DISABLE_AFTER: duration('5 days'),
  /** Attempts in flight to one configuration at most; one that finds it full is retried shortly by Temporal (docs/webhooks.md). */
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z.coerce.number().int().positive().max(1000).default(4),
  /**
   * Delivery attempts a second per tenant (account and mode) that the webhooks task queue hands out:
   * Temporal's fairness-key rate limit, set on the queue by the stack and the compose setup (docs/webhooks.md).
   */
  WEBHOOK_FAIRNESS_KEY_RPS: z.coerce.number().positive().max(100_000).default(50),
  /** Attempts one worker process runs at once: the webhooks worker's activity slots (docs/webhooks.md). */
  WEBHOOK_WORKER_SLOTS: z.coerce.number().int().positive().max(1000).default(50),
  /** The most deliveries one `POST /webhooks/:id/recover` queues; the answer says whether more remain (docs/webhooks.md). */
  RECOVER_MAX_DELIVERIES: z.coerce.number().int().positive().max(10_000).default(1000),
  /** How often the ledger's invariants are checked by a Temporal Schedule (docs/money.md). */
  LEDGER_VERIFY_INTERVAL: duration('5 min'),
  /** The most payments one run of the ledger check covers; the next run goes on from there (docs/money.md). */
  LEDGER_VERIFY_PAGE_SIZE: z.coerce.number().int().positive().max(100_000).default(1000),
  ...payoutSettings,
});

export type Config = z.infer<typeof schema>;

export { ConfigError };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const config = Object.freeze(parsed.data);
  // A single port listed for receivers that a setting gives the stack itself is a mistake: say so at start.
  const own = stackPorts(config);
  const clash = config.WEBHOOK_LOOPBACK_PORTS.find(([low, high]) => low === high && own.has(low));
  if (clash) {
    throw new ConfigError(
      `invalid configuration:\n  WEBHOOK_LOOPBACK_PORTS: port ${clash[0]} is one this stack listens on (API, metrics, Temporal or database); no webhook may reach it: list only your receivers' ports`,
    );
  }
  return config;
}

const HOW_TO = {
  SERVICE_JWT_SECRET: 'at least 32 random characters, e.g. `openssl rand -base64 48`',
  WEBHOOK_SECRET_KEY: '32 random bytes as base64 or hex, e.g. `openssl rand -base64 32`',
  AUDIT_SIGNING_KEY: 'an Ed25519 seed, 32 random bytes as base64 or hex, e.g. `openssl rand -base64 32`',
} as const;
type SecretSetting = keyof typeof HOW_TO;

/**
 * A process that needs secrets refuses to start without them: only `npm start` generates its own
 * (under DATA_DIR). No process ever falls back to a known value.
 */
export function requireSecrets<K extends SecretSetting>(
  config: Config,
  names: K[],
  processName: string,
): Config & { [P in K]-?: NonNullable<Config[P]> } {
  const missing = names.filter((n) => config[n] === undefined);
  if (missing.length > 0) {
    const lines = missing.map((n) => `  ${n}: required by ${processName}; set it to ${HOW_TO[n]}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return config as Config & { [P in K]-?: NonNullable<Config[P]> };
}

/** The custody account live payouts are debited from, or a clear error naming each setting it lacks (docs/payouts.md). */
export function custodyAccount(config: Config): { name: string; iban: string; bic: string; initiatorId?: string } {
  const missing = (['CUSTODY_ACCOUNT_NAME', 'CUSTODY_ACCOUNT_IBAN', 'CUSTODY_ACCOUNT_BIC'] as const).filter((n) => config[n] === undefined);
  if (missing.length > 0) {
    const lines = missing.map((n) => `  ${n}: required to write live payouts' bank files (docs/payouts.md)`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return {
    name: config.CUSTODY_ACCOUNT_NAME!,
    iban: config.CUSTODY_ACCOUNT_IBAN!,
    bic: config.CUSTODY_ACCOUNT_BIC!,
    ...(config.CUSTODY_ACCOUNT_INITIATOR_ID ? { initiatorId: config.CUSTODY_ACCOUNT_INITIATOR_ID } : {}),
  };
}

/** The JWT secret, or a clear error naming SERVICE_JWT_SECRET. */
export function jwtSecret(config: Config): string {
  return requireSecrets(config, ['SERVICE_JWT_SECRET'], 'this process').SERVICE_JWT_SECRET;
}

/** The webhook secret key, or a clear error naming WEBHOOK_SECRET_KEY. */
export function webhookSecretKey(config: Config): Buffer {
  return requireSecrets(config, ['WEBHOOK_SECRET_KEY'], 'this process').WEBHOOK_SECRET_KEY;
}

/** The tree-head signing key, or a clear error naming AUDIT_SIGNING_KEY. */
export function auditSigningKey(config: Config): KeyObject {
  return requireSecrets(config, ['AUDIT_SIGNING_KEY'], 'this process').AUDIT_SIGNING_KEY;
}

/** The ports each configuration's stack learned while starting (ports bound as 0, a dev server's). */
const learnedPorts = new WeakMap<Config, Set<number>>();

/** The port of a `host:port` address or a URL, or `fallback` when it names none. */
function portOf(address: string | undefined, fallback: number): number[] {
  if (address === undefined) return [];
  const url = URL.parse(address.includes('://') ? address : `tcp://${address}`);
  return [url?.port ? Number(url.port) : fallback];
}

/**
 * Every port this stack's processes listen on, as far as its settings and its start-up know them:
 * the API, both metrics listeners, Temporal (the address it connects to, and the dev server `npm
 * start` runs with its UI), the database, STACK_PORTS, and what the stack learned as it started
 * (`addStackPorts`). No webhook may target them (docs/security.md, "The stack's own ports").
 */
export function stackPorts(config: Config): ReadonlySet<number> {
  let ports = learnedPorts.get(config);
  if (!ports) {
    const named = [config.PORT, config.API_METRICS_PORT, config.WORKER_METRICS_PORT, config.TEMPORAL_DEV_PORT, config.TEMPORAL_UI_PORT];
    ports = new Set(
      [...named, ...portOf(config.TEMPORAL_ADDRESS, 7233), ...portOf(config.DATABASE_URL, 5432), ...config.STACK_PORTS].filter(
        (p) => p > 0,
      ),
    );
    learnedPorts.set(config, ports);
  }
  return ports;
}

/** Ports the stack learned while starting: an API or metrics listener bound to port 0, a dev server's every port. */
export function addStackPorts(config: Config, ports: Iterable<number | undefined>): void {
  const known = stackPorts(config) as Set<number>;
  for (const port of ports) if (port) known.add(port);
}

/** Derived once per configuration: every caller (API and publication) asks on each transition. */
const reasonHashKeys = new WeakMap<Config, Buffer>();

/**
 * The key of a transition reason's keyed hash (docs/audit.md, "Leaves"): derived with HKDF-SHA256
 * from WEBHOOK_SECRET_KEY, which the API (it hashes a client's reason) and the worker (timer reasons)
 * both hold, under an info string of its own; the API never holds AUDIT_SIGNING_KEY.
 */
export function reasonHashKey(config: Config): Buffer {
  let key = reasonHashKeys.get(config);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', webhookSecretKey(config), Buffer.alloc(0), 'payment-custody transition reason v1', 32));
    reasonHashKeys.set(config, key);
  }
  return key;
}
