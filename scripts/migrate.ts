/**
 * `npm run migrate`: knex migrations against DATABASE_URL (or the embedded PGlite database), then, with
 * DATABASE_API_ROLE and DATABASE_WORKER_ROLE set (the compose topology), their grants (src/platform/database/roles.ts).
 */
import { loadConfig } from '../src/platform/config';
import { createDb, migrate } from '../src/platform/database/knex';
import { grantRoles } from '../src/platform/database/roles';

const config = loadConfig();
const db = createDb(config.DATABASE_URL, config.DATA_DIR);
const roles = { api: config.DATABASE_API_ROLE, worker: config.DATABASE_WORKER_ROLE };
migrate(db)
  .then(() => console.log('migrations up to date'))
  .then(async () => {
    if (!roles.api && !roles.worker) return;
    await grantRoles(db, roles);
    console.log(
      `grants up to date: ${[roles.api && `${roles.api} (api)`, roles.worker && `${roles.worker} (workers)`].filter(Boolean).join(', ')}`,
    );
  })
  .finally(() => db.destroy())
  .catch((err) => {
    console.error(`migration failed: ${err.message}`);
    process.exit(1);
  });
