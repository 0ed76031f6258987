/**
 * Global setup for the browser (e2e) run: the same as test/globalSetup.ts — a migrated real
 * PostgreSQL, the workflow bundle, a real Temporal dev server — except that the dev server also
 * serves the Temporal UI, on a free port, and its URL is provided as `temporalUiUrl`.
 * The keys test/globalSetup.ts provides are provided here too, so test/helpers/stack.ts works as is.
 */
import type { TestProject } from 'vitest/node';
import { setupSuite } from '../globalSetup';

/** The UI is a separate HTTP server inside the CLI process; the gRPC port answering does not mean it does. */
async function waitForUi(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/v1/settings`);
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Temporal UI at ${url} did not come up: ${last}`);
}

export default async function setup(project: TestProject) {
  // Its own bundle file, so an e2e run beside `npm test` never rewrites the bundle the other run reads.
  const { server, teardown } = await setupSuite(project, { ui: true, bundleFile: 'e2e-workflow-bundle.js' });
  try {
    if (!server.uiUrl) throw new Error('the Temporal dev server was started without its UI');
    await waitForUi(server.uiUrl);
    project.provide('temporalUiUrl', server.uiUrl);
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}

declare module 'vitest' {
  export interface ProvidedContext {
    temporalUiUrl: string;
  }
}
