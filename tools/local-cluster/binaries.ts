/**
 * The Temporal binaries that stand for docker-compose.yml's images, in the project's .cache/: where they
 * are, and installing them (temporal-binaries.sh) when they are missing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, type Versions } from './compose';

/** Where temporal-binaries.sh puts the binaries for these versions. */
export function binaryDirs(versions: Versions, root = ROOT) {
  const server = path.join(root, '.cache', `temporal-server-${versions.server}`);
  const ui = path.join(root, '.cache', `temporal-ui-server-${versions.ui}`);
  return {
    server,
    temporalServer: path.join(server, 'temporal-server'),
    sqlTool: path.join(server, 'temporal-sql-tool'),
    schema: path.join(server, 'schema', 'postgresql', 'v12'),
    ui,
    uiServer: path.join(ui, 'ui-server'),
    /** The image's dockerize template (older UI releases), else config/docker.yaml templated by ui-server. */
    uiTemplate: path.join(ui, 'config-template.yaml'),
    uiConfig: path.join(ui, 'config', 'docker.yaml'),
    /** The Temporal CLI (temporal-binaries.sh and src/platform/lib/temporalDevServer.ts put it here). */
    cliDir: path.join(root, '.cache', 'bin'),
  };
}

/**
 * Every binary stack:cluster runs, installed by temporal-binaries.sh when one is missing (a fresh clone):
 * copied from the machine-wide cache, else built with Go (minutes, once per machine). Throws, with the
 * script's own message, when it cannot.
 */
export function ensureBinaries(bin: ReturnType<typeof binaryDirs>, say: (msg: string) => void, root = ROOT): void {
  const needed = [bin.temporalServer, bin.sqlTool, bin.uiServer, path.join(bin.cliDir, 'temporal')];
  const missing = needed.filter((file) => !fs.existsSync(file));
  if (missing.length === 0) return;
  say(`installing ${missing.map((f) => path.relative(root, f)).join(', ')} (tools/local-cluster/temporal-binaries.sh)`);
  const script = path.join(root, 'tools', 'local-cluster', 'temporal-binaries.sh');
  // Its progress goes to this terminal; its list of directories is not needed here.
  const res = spawnSync('bash', [script], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0)
    throw new Error(`${path.relative(root, script)} failed (exit ${res.status}): the binaries docker-compose.yml pins are missing`);
  const still = needed.filter((file) => !fs.existsSync(file));
  if (still.length > 0) throw new Error(`still missing after temporal-binaries.sh: ${still.map((f) => path.relative(root, f)).join(', ')}`);
}
