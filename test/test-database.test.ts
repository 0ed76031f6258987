/**
 * `npm test` on a machine without PostgreSQL (docs/testing.md, "PostgreSQL for the tests"): the run
 * starts a real PostgreSQL of its own in a temporary directory, and it is stopped and removed at
 * the end, also when the run is killed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort, listenOn } from '../src/platform/lib/net';
import { answers, startEmbeddedPostgres, testDatabase } from '../tools/testSupport';
import { eventually } from './helpers/stack';

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('show server_version')).rows[0].server_version;
  } finally {
    await client.end();
  }
}

describe('the test run’s own PostgreSQL', () => {
  it('is a real PostgreSQL 15 (the major version of the pg_dump the tests run) with the database asked for, gone after stop', async () => {
    const server = await startEmbeddedPostgres('some_db');
    try {
      expect(new URL(server.url).pathname).toBe('/some_db');
      expect(await serverVersion(server.url)).toMatch(/^15\./);
      expect(fs.existsSync(server.dir)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(fs.existsSync(server.dir)).toBe(false);
    expect(await answers(server.url)).toBe(false);
  });

  it('stops and is removed when the process that started it is killed outright', async () => {
    const parent = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/hold-embedded-postgres.ts')], {
      cwd: path.resolve(__dirname, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    parent.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const { url, dir } = await eventually(
      async () => (out.includes('\n') ? (JSON.parse(out) as { url: string; dir: string }) : undefined),
      60_000,
      'the server',
    );
    expect(await serverVersion(url)).toMatch(/^15\./);
    parent.kill('SIGKILL');
    await eventually(async () => (!fs.existsSync(dir) && !(await answers(url)) ? true : undefined), 30_000, 'the server gone');
  });

  it('is started only when DATABASE_URL is unset and nothing answers at the default address', async () => {
    const nobody = `postgres://127.0.0.1:${await freePort()}/run_db`;
    const given = `postgres://127.0.0.1:${await freePort()}/elsewhere`;
    expect(await testDatabase({ env: { DATABASE_URL: given }, defaultUrl: nobody })).toMatchObject({ url: given, source: 'DATABASE_URL' });

    const listener = net.createServer((socket) => socket.destroy());
    const port = await listenOn(listener, 0, '127.0.0.1', 'test');
    try {
      const someone = `postgres://127.0.0.1:${port}/test`;
      expect(await testDatabase({ env: {}, defaultUrl: someone })).toMatchObject({ url: someone, source: 'default' });
    } finally {
      listener.close();
    }

    const own = await testDatabase({ env: {}, defaultUrl: nobody });
    try {
      expect(own.source).toBe('embedded');
      expect(new URL(own.url).pathname).toBe('/run_db');
      expect(await serverVersion(own.url)).toMatch(/^15\./);
    } finally {
      await own.stop();
    }
    expect(await answers(own.url)).toBe(false);
  });
});
