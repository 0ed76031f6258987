/** `npm run admin -- create-account --email E --password P` prints the new account as one JSON object. */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../src/platform/config';
import { EmailTakenError, createAccount } from '../src/tenants/tenants.repository';
import { createDb, migrate } from '../src/platform/database/knex';
import { runCommand } from './lib/cli';

const USAGE = 'usage: npm run admin -- create-account --email <email> --password <password>';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { email: { type: 'string' }, password: { type: 'string' } },
  });
  if (positionals[0] !== 'create-account') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const input = z
    .object({
      email: z.email('--email must be a valid e-mail address'),
      password: z.string('--password is required').min(8, '--password needs at least 8 characters'),
    })
    .safeParse(values);
  if (!input.success) {
    process.stderr.write(`${input.error.issues.map((i) => i.message).join('\n')}\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const db = createDb(config.DATABASE_URL, config.DATA_DIR, 'use its API instead: log in and make keys with POST /api/v1/api-keys');
  try {
    await migrate(db);
    process.stdout.write(`${JSON.stringify(await createAccount(db, input.data.email, input.data.password))}\n`);
    return 0;
  } catch (err) {
    if (err instanceof EmailTakenError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.destroy();
  }
}

runCommand(main, 'admin failed', 1);
