/** The Temporal CLI as anyone with access to the cluster runs it, for the tests that check what it shows. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, inject } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

/** The CLI's output, and every base64 text in it decoded (payloads, as the CLI gives them to anyone). */
export function temporalCli(args: string[]): string {
  const result = spawnSync('npm', ['run', '--silent', 'temporal', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress') },
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  const decoded = [...result.stdout.matchAll(/"([A-Za-z0-9+/=_-]{8,})"/g)].map(([, b64]) => Buffer.from(b64, 'base64').toString('utf8'));
  return [result.stdout, ...decoded].join('\n');
}
