/**
 * `npm start`'s demo login and test key. They belong to the database they were made in: DATA_DIR/
 * demo.json keeps them per database, and they are checked against the database in use before the
 * banner shows them, so a banner never prints credentials that answer 401.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from './config';
import { countAccounts } from './db/accounts';
import type { AccountsService } from './services/accounts';

const DEMO_EMAIL = 'demo@example.com';
export const DEMO_FILE = 'demo.json';

export interface Demo {
  email: string;
  password: string;
  test_api_key: string;
}

/**
 * The file: the credentials of the database last started on at the top (what the quickstart reads
 * with `jq .test_api_key`), and every database's under `databases`, by `databaseIdentity`.
 */
interface DemoFile extends Partial<Demo> {
  database?: string;
  databases?: Record<string, Demo>;
}

/** Which database: the embedded one's directory, or the URL without its password. */
function databaseIdentity(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): string {
  if (!config.DATABASE_URL) return `embedded:${path.resolve(config.DATA_DIR, 'pglite')}`;
  const url = new URL(config.DATABASE_URL);
  url.password = '';
  return url.toString();
}

function readFile(file: string): DemoFile {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as DemoFile;
  } catch {
    return {};
  }
}

/** The credentials work here: the key authenticates and the password logs the demo user in. */
async function works(accounts: AccountsService, demo: Demo): Promise<boolean> {
  try {
    await accounts.principalFromApiKey(demo.test_api_key);
    await accounts.login(demo.email, demo.password);
    return true;
  } catch {
    return false;
  }
}

/**
 * The demo credentials of the database in use: those kept for it when they still work there, else,
 * on an empty database, a new demo account with a random password (kept in DATA_DIR/demo.json, mode
 * 0600, like the other local secrets). A database with other accounts gets none.
 */
export async function demoCredentials(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>,
  db: Knex,
  accounts: AccountsService,
): Promise<Demo | undefined> {
  const file = path.join(config.DATA_DIR, DEMO_FILE);
  const stored = readFile(file);
  const database = databaseIdentity(config);
  const databases = { ...stored.databases };
  // A file from before `databases` holds one database's credentials, whichever: verified like the others.
  const candidates = [databases[database], stored.email ? (stored as Demo) : undefined].filter((d): d is Demo => !!d);
  let demo: Demo | undefined;
  for (const candidate of candidates) if (!demo && (await works(accounts, candidate))) demo = candidate;
  if (!demo && (await countAccounts(db)) === 0) {
    const password = randomBytes(12).toString('base64url');
    const created = await accounts.createAccount(DEMO_EMAIL, password);
    demo = { email: DEMO_EMAIL, password, test_api_key: created.test_api_key };
  }
  if (!demo) return undefined;
  const { email, password, test_api_key } = demo;
  databases[database] = { email, password, test_api_key };
  const next: DemoFile = { email, password, test_api_key, database, databases };
  fs.mkdirSync(config.DATA_DIR, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return demo;
}
