/**
 * One real Temporal dev server and a migrated real PostgreSQL database for the whole run; the
 * workflow code is bundled once and shared by every test file's worker. The database is
 * DATABASE_URL's, else the default server's, else a PostgreSQL started for the run (testDatabase).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { SEARCH_ATTRIBUTE_TYPES } from '../src/platform/searchAttributes.rules';
import { createDb, migrate } from '../src/platform/database/knex';
import { freePort } from '../src/platform/lib/net';
import { startDevServer, type DevServer } from '../src/platform/lib/temporalDevServer';
import { buildWorkflowBundle } from '../scripts/build-workflows';
import { testDatabase, type TestDatabase } from '../tools/testSupport';

/** The run's database, migrated; the bundle; the dev server (with its UI when asked); what test files inject. */
export async function setupSuite(
  project: TestProject,
  opts: { ui: boolean; bundleFile: string },
): Promise<{ server: DevServer; teardown: () => Promise<void> }> {
  const database = await testDatabase({ say: (msg) => console.log(msg) });
  let server: DevServer | undefined;
  try {
    const db = createDb(database.url);
    try {
      await migrate(db);
    } finally {
      await db.destroy();
    }
    const [bundlePath, started] = await Promise.all([
      buildWorkflowBundle(path.resolve(__dirname, '../test-output', opts.bundleFile)),
      (async () =>
        startDevServer({
          port: await freePort(),
          uiPort: opts.ui ? await freePort() : undefined,
          headless: !opts.ui,
          searchAttributes: SEARCH_ATTRIBUTE_TYPES,
          // Every test stack polls a task queue of its own, so is a Worker Deployment of its own
          // (src/platform/worker/versioning.ts): far more than the 100 a namespace may hold by default.
          dynamicConfig: ['matching.maxDeployments=100000'],
        }))(),
    ]);
    server = started;
    project.provide('temporalAddress', server.address);
    // Its every port, internal ones included: each test stack's STACK_PORTS, as stack:cluster passes its own.
    project.provide('temporalPorts', server.ports.join(','));
    project.provide('databaseUrl', database.url);
    project.provide('workflowBundlePath', bundlePath);
    // One tree-head signing key for every stack of the run: they all sign heads of the one shared log.
    project.provide('auditSigningKey', randomBytes(32).toString('base64'));
  } catch (err) {
    await stopAll(server, database);
    throw err;
  }
  const s = server;
  return { server: s, teardown: () => stopAll(s, database) };
}

async function stopAll(server: DevServer | undefined, database: TestDatabase) {
  await server?.stop();
  await database.stop();
}

export default async function setup(project: TestProject) {
  const { teardown } = await setupSuite(project, { ui: false, bundleFile: 'workflow-bundle.js' });
  return teardown;
}

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalPorts: string;
    databaseUrl: string;
    workflowBundlePath: string;
    auditSigningKey: string;
  }
}
