/**
 * `npm start` on one machine: the secrets it needs are generated on first start and kept under
 * DATA_DIR (file mode 0600), so no process ever runs with a known secret and tokens and webhook
 * secrets stay valid across restarts. Values set in the environment win over the file.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './platform/config';

export const LOCAL_SECRETS_FILE = 'secrets.json';

interface LocalSecrets {
  SERVICE_JWT_SECRET: string;
  /** base64 of 32 random bytes */
  WEBHOOK_SECRET_KEY: string;
  /** base64 of a 32-byte Ed25519 seed: signs the custody trail's tree heads */
  AUDIT_SIGNING_KEY: string;
}

const generate = (): LocalSecrets => ({
  SERVICE_JWT_SECRET: randomBytes(48).toString('base64url'),
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  AUDIT_SIGNING_KEY: randomBytes(32).toString('base64'),
});

/** Read DATA_DIR/secrets.json, creating it (0600, exclusively) with fresh random values when absent. */
export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCAL_SECRETS_FILE);
  try {
    // 'wx': never overwrite; a concurrent first start loses the race and reads the winner's file.
    fs.writeFileSync(file, `${JSON.stringify(generate(), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  fs.chmodSync(file, 0o600);
  let stored: Partial<LocalSecrets>;
  try {
    stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(
      `invalid configuration:\n  ${file}: unreadable (${(err as Error).message}); delete it to generate new secrets (existing tokens and webhook secrets are then lost)`,
    );
  }
  if (typeof stored.SERVICE_JWT_SECRET !== 'string' || typeof stored.WEBHOOK_SECRET_KEY !== 'string') {
    throw new ConfigError(`invalid configuration:\n  ${file}: must hold SERVICE_JWT_SECRET and WEBHOOK_SECRET_KEY`);
  }
  // A file written before the custody trail existed gains its signing key, once.
  if (typeof stored.AUDIT_SIGNING_KEY !== 'string') {
    stored.AUDIT_SIGNING_KEY = randomBytes(32).toString('base64');
    fs.writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    SERVICE_JWT_SECRET: stored.SERVICE_JWT_SECRET,
    WEBHOOK_SECRET_KEY: stored.WEBHOOK_SECRET_KEY,
    AUDIT_SIGNING_KEY: stored.AUDIT_SIGNING_KEY,
  };
}

/** `npm start`'s configuration: the environment, with the local secrets for what it does not set. */
export function loadConfigWithLocalSecrets(env: NodeJS.ProcessEnv = process.env): Config {
  const base = loadConfig(env);
  if (base.SERVICE_JWT_SECRET && base.WEBHOOK_SECRET_KEY && base.AUDIT_SIGNING_KEY) return base;
  const local = loadOrCreateLocalSecrets(base.DATA_DIR);
  const set = (name: keyof LocalSecrets) => (env[name] ? {} : { [name]: local[name] });
  return loadConfig({ ...env, ...set('SERVICE_JWT_SECRET'), ...set('WEBHOOK_SECRET_KEY'), ...set('AUDIT_SIGNING_KEY') });
}
