/**
 * `npm start`'s demo login and test key. They belong to the database they were made in: DATA_DIR/
 * demo.json keeps them per database, and they are checked against the database in use before the
 * banner shows them, so a banner never prints credentials that answer 401.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from './platform/config';
import { countAccounts } from './tenants/tenants.repository';
import type { AccountsService } from './tenants/tenants.service';

const DEMO_EMAIL = 'demo@example.com';
/** The password every demo login had before they were random: anyone can guess it. */
const FIXED_DEMO_PASSWORD = 'demo-password';

const randomPassword = () => randomBytes(12).toString('base64url');
export const DEMO_FILE = 'demo.json';

export interface Demo {
  email: string;
  password: string;
  test_api_key: string;
  /** The demo account's live key (docs/quickstart.md, "Live mode"); absent for a demo account made before it was kept. */
  live_api_key?: string;
}

/**
 * The file: the credentials of the database last started on at the top (what the quickstart reads
 * with `jq .test_api_key`; none when that database has no demo account), and every database's
 * under `databases`, by `databaseIdentity`.
 */
interface DemoFile extends Partial<Demo> {
  database?: string;
  databases?: Record<string, Demo>;
}

/** Where a file from before `databases` keeps its credentials until a database they work in claims them. */
const UNIDENTIFIED = 'unidentified';

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
 * The demo credentials of the database in use: those kept for it when they still work there (a
 * random password in place of an old data directory's fixed one), else, on an empty database, a new
 * demo account with a random password (kept in DATA_DIR/demo.json, mode 0600, like the other local
 * secrets). A database with other accounts gets none.
 */
export async function demoCredentials(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>,
  db: Knex,
  accounts: AccountsService,
): Promise<Demo | undefined> {
  const file = path.join(config.DATA_DIR, DEMO_FILE);
  const stored = readFile(file);
  const database = databaseIdentity(config);
  const kept = new Map(Object.entries(stored.databases ?? {}));
  // A file from before `databases` holds one database's credentials, whichever: kept until one they work in claims them.
  if (!stored.database && stored.email && stored.password && stored.test_api_key && !kept.has(UNIDENTIFIED)) {
    const { email, password, test_api_key } = stored;
    kept.set(UNIDENTIFIED, { email, password, test_api_key });
  }
  let demo: Demo | undefined;
  for (const key of [database, UNIDENTIFIED]) {
    const candidate = kept.get(key);
    if (!candidate || !(await works(accounts, candidate))) continue;
    demo = candidate;
    // Claimed: from now on they are this database's.
    if (key === UNIDENTIFIED) kept.delete(UNIDENTIFIED);
    break;
  }
  if (demo?.password === FIXED_DEMO_PASSWORD) {
    const password = randomPassword();
    await accounts.setPassword(demo.email, password);
    demo = { ...demo, password };
  }
  if (!demo && (await countAccounts(db)) === 0) {
    const password = randomPassword();
    const created = await accounts.createAccount(DEMO_EMAIL, password);
    demo = { email: DEMO_EMAIL, password, test_api_key: created.test_api_key, live_api_key: created.live_api_key };
  }
  if (demo) kept.set(database, demo);
  else kept.delete(database);
  const databases = Object.fromEntries(kept);
  const next: DemoFile = demo
    ? { email: demo.email, password: demo.password, test_api_key: demo.test_api_key, live_api_key: demo.live_api_key, database, databases }
    : { database, databases };
  // The top level is rewritten either way: it never shows another database's credentials.
  fs.mkdirSync(config.DATA_DIR, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return demo;
}
