/**
 * `npm run stack:cluster` on a fresh clone, as docs/commands.md tells a new user: no `.cache/` in the project,
 * no Temporal CLI on PATH or in TEMPORAL_CLI_PATH, nothing of `.ci/run`'s preparation. It installs what it
 * needs itself (tools/local-cluster/temporal-binaries.sh), then comes up and stops on Ctrl-C.
 *
 * The clone is the working tree's files (tracked and new, not ignored) copied to a temporary directory,
 * with the dependencies `npm install` gave it. Binaries come from the machine-wide cache when an earlier
 * run built them (as .ci/run's does before this suite): the code path is the new user's, whose project
 * cache is empty; only Go's ten-minute build is spared.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryDirs } from '../../tools/local-cluster/binaries';
import { composeVersions } from '../../tools/local-cluster/compose';
import { alive, clusterPorts, freshDatabases, startCluster, type ClusterRun } from './support';

const ROOT = path.resolve(__dirname, '../..');
const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-fresh-clone-'));
const stateFile = path.join(clone, '.data', 'state.json');
let run: ClusterRun | undefined;

/** The working tree as a clone of it would be: tracked and untracked files, none that .gitignore excludes. */
function copyWorkingTree(to: string): void {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    // node_modules may be a symbolic link, which a directory pattern in .gitignore does not match.
    if (file === 'node_modules' || !fs.existsSync(path.join(ROOT, file))) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.cpSync(path.join(ROOT, file), path.join(to, file), { verbatimSymlinks: true });
  }
  // What `npm install` gives a clone (not part of .ci/run's preparation this test leaves out).
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(to, 'node_modules'));
}

/** PATH without any directory holding a `temporal`: the new user has no CLI installed. */
const pathWithoutTemporal = () =>
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !fs.existsSync(path.join(dir, 'temporal')))
    .join(path.delimiter);

beforeAll(() => copyWorkingTree(clone));

afterAll(async () => {
  await run?.stop();
  fs.rmSync(clone, { recursive: true, force: true });
});

describe('npm run stack:cluster on a fresh clone', () => {
  it('installs the Temporal binaries it needs, comes up, and stops on Ctrl-C', async () => {
    expect(fs.existsSync(path.join(clone, '.cache'))).toBe(false);
    const { appUrl } = await freshDatabases('fresh_clone');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: pathWithoutTemporal(),
      DATABASE_URL: appUrl,
      ...(await clusterPorts()),
      STACK_DATA_DIR: path.dirname(stateFile),
      STACK_STATE_FILE: stateFile,
    };
    delete env.TEMPORAL_CLI_PATH;
    run = await startCluster(clone, env, stateFile);

    const bin = binaryDirs(composeVersions(), clone);
    for (const file of [bin.temporalServer, bin.sqlTool, bin.uiServer, path.join(bin.cliDir, 'temporal')])
      expect(fs.existsSync(file), `${path.relative(clone, file)} installed in the clone`).toBe(true);
    expect(run.output()).toContain('stack:cluster: installing ');

    const state = run.readState();
    for (const url of state.apiUrls) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${state.uiUrl}/api/v1/settings`)).status).toBe(200);

    const pids = Object.values(state.processes);
    process.kill(-run.child.pid!, 'SIGINT');
    await run.exited;
    expect(run.output()).toContain('stack:cluster: stopped');
    for (const pid of pids) expect(alive(pid), `pid ${pid} still running after Ctrl-C`).toBe(false);
  }, 500_000);
});
