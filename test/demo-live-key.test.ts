/**
 * `npm start` hands over both keys (docs/quickstart.md, "Live mode"): a fresh data directory's demo
 * account's live key is kept in demo.json beside its test key, and it acts in live mode.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createDb, migrate } from '../src/platform/database/knex';
import { DEMO_FILE, demoCredentials } from '../src/demo';
import { accountsService } from '../src/tenants/tenants.service';

it('a new demo account’s live key is in demo.json beside its test key, and each acts in its own mode', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-demo-live-'));
  const db = createDb(undefined, dir);
  try {
    await migrate(db);
    const accounts = accountsService({ db, jwtSecret: () => randomBytes(32).toString('base64') });
    const demo = await demoCredentials({ DATA_DIR: dir, DATABASE_URL: undefined }, db, accounts);
    expect(demo?.live_api_key).toMatch(/^svc_live_/);
    const file = JSON.parse(fs.readFileSync(path.join(dir, DEMO_FILE), 'utf8')) as Record<string, unknown>;
    expect(file).toMatchObject({ test_api_key: demo!.test_api_key, live_api_key: demo!.live_api_key });
    expect((await accounts.principalFromApiKey(demo!.live_api_key!)).livemode).toBe(true);
    expect((await accounts.principalFromApiKey(demo!.test_api_key)).livemode).toBe(false);
    // Started again: the same keys.
    expect((await demoCredentials({ DATA_DIR: dir, DATABASE_URL: undefined }, db, accounts))?.live_api_key).toBe(demo!.live_api_key);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
