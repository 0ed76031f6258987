/** `npm run migrate`: knex migrations against DATABASE_URL (or the embedded PGlite database). */
import { loadConfig } from '../src/config';
import { createDb, migrate } from '../src/db/knex';

const config = loadConfig();
const db = createDb(config.DATABASE_URL, config.DATA_DIR);
migrate(db)
  .then(() => console.log('migrations up to date'))
  .finally(() => db.destroy())
  .catch((err) => {
    console.error(`migration failed: ${err.message}`);
    process.exit(1);
  });
