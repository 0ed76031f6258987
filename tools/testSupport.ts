/** What tests, benchmarks and the local tools share, and the service itself never needs. */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { canListen, freeLowPort } from '../src/platform/lib/net';

/** The database URL tests and tools use when none is given. */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://127.0.0.1:5432/test';

/**
 * A free port whose next port is free too (stack:cluster's two APIs listen on PORT and PORT+1), by
 * default below the ephemeral range (freeLowPort), where no outgoing connection takes it first.
 */
export async function freePortPair(pick: () => Promise<number> = freeLowPort): Promise<number> {
  for (;;) {
    const p = await pick();
    if (await canListen(p + 1)) return p;
  }
}

/** Something accepts connections at the URL's host and port (the default server, when there is one). */
export function answers(url: string, timeoutMs = 2000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface TestDatabase {
  url: string;
  /** Where it comes from: DATABASE_URL, the server at the default address, or started for this run. */
  source: 'DATABASE_URL' | 'default' | 'embedded';
  /** Stops and removes a server started for the run; nothing for the others. */
  stop: () => Promise<void>;
}

/**
 * The test run's database: DATABASE_URL when set; else the server at the default address when one
 * answers; else a real PostgreSQL started for this run (tools/embedded-postgres.ts), stopped and
 * removed by `stop()` or, if the run is interrupted, as soon as this process is gone.
 */
export async function testDatabase({
  env = process.env,
  defaultUrl = DEFAULT_TEST_DATABASE_URL,
  say = () => undefined,
}: { env?: NodeJS.ProcessEnv; defaultUrl?: string; say?: (msg: string) => void } = {}): Promise<TestDatabase> {
  const given = env.DATABASE_URL;
  if (given) return { url: given, source: 'DATABASE_URL', stop: async () => undefined };
  if (await answers(defaultUrl)) return { url: defaultUrl, source: 'default', stop: async () => undefined };
  const server = await startEmbeddedPostgres(decodeURIComponent(new URL(defaultUrl).pathname.slice(1)));
  say(`no DATABASE_URL and nothing at ${defaultUrl}: started PostgreSQL (embedded-postgres) at ${server.url}, in ${server.dir}`);
  return { url: server.url, source: 'embedded', stop: server.stop };
}

/** tools/embedded-postgres.ts in a child of its own: its own process group (a Ctrl-C reaches this process, which then exits), its stdin a pipe from here whose closing stops it. */
export async function startEmbeddedPostgres(database: string): Promise<{ url: string; dir: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'embedded-postgres.ts'), database], {
    cwd: path.resolve(__dirname, '..'),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-20_000)));
  const started = await new Promise<{ url: string; dir: string }>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const end = stdout.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(stdout.slice(0, end)) as { url: string; dir: string });
    });
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited (code ${code}) before it was ready:\n${stderr}${stdout}`)));
    child.once('error', reject);
  });
  return {
    ...started,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.stdin.end();
      // Its signal handlers stop the server too, should the pipe's end go unnoticed.
      const nudge = setTimeout(() => child.kill('SIGTERM'), 30_000);
      await exited;
      clearTimeout(nudge);
    },
  };
}
