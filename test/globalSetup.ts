/**
 * One real Temporal dev server and a migrated real PostgreSQL database for the whole run; the
 * workflow code is bundled once and shared by every test file's worker.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { SEARCH_ATTRIBUTE_TYPES } from '../src/domain/searchAttributes';
import { createDb, migrate } from '../src/db/knex';
import { freePort } from '../src/lib/net';
import { startDevServer, type DevServer } from '../src/lib/temporalDevServer';
import { buildWorkflowBundle } from '../scripts/build-workflows';
import { DEFAULT_TEST_DATABASE_URL } from '../tools/testSupport';

/** Migrate, bundle and start the dev server (with its UI when asked); provide what test files inject. */
export async function setupSuite(project: TestProject, opts: { ui: boolean; bundleFile: string }): Promise<DevServer> {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const db = createDb(databaseUrl);
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
  const [bundlePath, server] = await Promise.all([
    buildWorkflowBundle(path.resolve(__dirname, '../test-output', opts.bundleFile)),
    (async () =>
      startDevServer({
        port: await freePort(),
        uiPort: opts.ui ? await freePort() : undefined,
        headless: !opts.ui,
        searchAttributes: SEARCH_ATTRIBUTE_TYPES,
      }))(),
  ]);
  project.provide('temporalAddress', server.address);
  // Its every port, internal ones included: each test stack's STACK_PORTS, as stack:cluster passes its own.
  project.provide('temporalPorts', server.ports.join(','));
  project.provide('databaseUrl', databaseUrl);
  project.provide('workflowBundlePath', bundlePath);
  // One tree-head signing key for every stack of the run: they all sign heads of the one shared log.
  project.provide('auditSigningKey', randomBytes(32).toString('base64'));
  return server;
}

export default async function setup(project: TestProject) {
  const server = await setupSuite(project, { ui: false, bundleFile: 'workflow-bundle.js' });
  return () => server.stop();
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
