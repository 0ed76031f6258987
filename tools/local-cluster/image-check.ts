/**
 * The Dockerfile's steps, run without Docker (CI has no container engine), so that a broken image fails CI.
 *
 * Reads ./Dockerfile and carries out its stages in a temporary directory, one folder per stage standing
 * for that stage's WORKDIR: COPY from the repository or `--from=<stage>`, RUN in that folder with the
 * stage's ENV, and at the end the runtime stage's CMD. Then the image's processes must answer:
 *   the CMD (the API)                    GET /healthz and /readyz 200
 *   compose's worker command             GET /healthz 200 on WORKER_METRICS_PORT (on the built workflow bundle)
 *   compose's migrate command            exits 0
 * against real PostgreSQL (DATABASE_URL, default the test database) and a Temporal dev server started here.
 *
 * Not carried out, because they act on the image's operating system rather than the application:
 * `apt-get` lines (tini), folders made and owned at the image's absolute paths (the volumes' mount points,
 * `mkdir -p /… && chown -R node:node /…`), `npm cache clean` (image size only; here it would wipe this machine's npm cache),
 * USER, and the tini ENTRYPOINT (the command runs as `node`, as under tini). Usage: bash tools/local-cluster/image-check.sh
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_TEST_DATABASE_URL } from '../testSupport';
import { freePort } from '../../src/platform/lib/net';
import { SEARCH_ATTRIBUTE_TYPES } from '../../src/platform/searchAttributes.rules';
import { startDevServer } from '../../src/platform/lib/temporalDevServer';
import { ROOT, argv, readCompose } from './compose';

const say = (msg: string) => process.stdout.write(`image-check: ${msg}\n`);

interface Stage {
  name: string;
  dir: string;
  workdir: string;
  env: Record<string, string>;
  cmd?: string[];
}

/** Dockerfile instructions, continuation lines joined, comments and blank lines dropped. */
export function instructions(text: string): { op: string; rest: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = l.match(/^(\S+)\s+(.*)$/)!;
      return { op: m[1].toUpperCase(), rest: m[2] };
    });
}

function run(cmd: string, stage: Stage): void {
  if (/\bapt-get\b/.test(cmd)) {
    say(`  skip (image OS): ${cmd}`);
    return;
  }
  // Folders made and owned at absolute paths of the image (the volumes' mount points, for its `node`
  // user): here they would be this machine's, which has no such user.
  if (cmd.split('&&').every((c) => /^\s*(mkdir -p|chown -R \S+)( \/[\w/.-]+)+\s*$/.test(c))) {
    say(`  skip (image file system): ${cmd}`);
    return;
  }
  const cmds = cmd
    .split('&&')
    .map((c) => c.trim())
    .filter((c) => !/^npm cache clean\b/.test(c) || (say(`  skip (image size only): ${c}`), false));
  for (const c of cmds) {
    say(`  RUN ${c}`);
    const res = spawnSync('sh', ['-c', c], {
      cwd: path.join(stage.dir, stage.workdir),
      env: { ...process.env, ...stage.env, CI: 'true' },
      stdio: 'inherit',
    });
    if (res.status !== 0) throw new Error(`RUN ${c} failed in stage ${stage.name} (exit ${res.status})`);
  }
}

function copy(args: string[], stage: Stage, stages: Map<string, Stage>): void {
  let from: Stage | undefined;
  const rest = args.filter((a) => {
    const m = a.match(/^--from=(.+)$/);
    if (m) from = stages.get(m[1]);
    return !a.startsWith('--');
  });
  if (args.some((a) => a.startsWith('--from=')) && !from) throw new Error(`COPY ${args.join(' ')}: unknown stage`);
  const dest = rest.pop()!;
  for (const src of rest) {
    const source = from ? path.join(from.dir, src.replace(/^\//, '')) : path.join(ROOT, src);
    const target = path.join(stage.dir, dest.startsWith('/') ? dest : path.join(stage.workdir, dest));
    const into = dest.endsWith('/') || rest.length > 1 ? path.join(target, path.basename(src)) : target;
    if (!fs.existsSync(source)) throw new Error(`COPY ${src}: ${source} does not exist`);
    fs.mkdirSync(path.dirname(into), { recursive: true });
    fs.cpSync(source, into, { recursive: true });
  }
}

function buildImage(dockerfile: string, work: string): Stage {
  const stages = new Map<string, Stage>();
  const args: Record<string, string> = {};
  let stage: Stage | undefined;
  for (const { op, rest } of instructions(dockerfile)) {
    const expand = (s: string) => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args[a ?? b] ?? stage?.env[a ?? b] ?? '');
    if (op === 'ARG') {
      const [k, v] = rest.split('=');
      args[k] = v ?? '';
    } else if (op === 'FROM') {
      const m = expand(rest).match(/^(\S+)(?:\s+AS\s+(\S+))?$/i)!;
      const name = m[2] ?? `stage${stages.size}`;
      stage = { name, dir: path.join(work, name), workdir: '/', env: {} };
      fs.mkdirSync(stage.dir, { recursive: true });
      stages.set(name, stage);
      say(`stage ${name} (FROM ${m[1]})`);
    } else if (!stage) {
      throw new Error(`${op} before FROM`);
    } else if (op === 'WORKDIR') {
      stage.workdir = rest;
      fs.mkdirSync(path.join(stage.dir, rest), { recursive: true });
    } else if (op === 'COPY') {
      copy(rest.split(/\s+/), stage, stages);
    } else if (op === 'RUN') {
      run(expand(rest), stage);
    } else if (op === 'ENV') {
      for (const m of rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[m[1]] = m[2].replace(/^"|"$/g, '');
    } else if (op === 'CMD') {
      stage.cmd = JSON.parse(rest) as string[];
    } else if (!['USER', 'EXPOSE', 'ENTRYPOINT', 'LABEL'].includes(op)) {
      throw new Error(`unsupported Dockerfile instruction ${op}`);
    }
  }
  if (!stage?.cmd) throw new Error('the last stage has no CMD');
  return stage;
}

function startProcess(
  argvList: string[],
  cwd: string,
  env: Record<string, string>,
  name: string,
): { child: ChildProcess; output: () => string } {
  const [cmd, ...rest] = argvList;
  const child = spawn(cmd, rest, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out = (out + c).slice(-20_000)));
  child.stderr.on('data', (c) => (out = (out + c).slice(-20_000)));
  child.once('exit', (code) => say(`${name} exited (${code})`));
  return { child, output: () => out };
}

async function answers(url: string, proc: { child: ChildProcess; output: () => string }, name: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) {
      say(`${name}: ${url} → 200`);
      return;
    }
    if (proc.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${name} never answered ${url} (last status ${status}):\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'image-check-'));
  const procs: ChildProcess[] = [];
  let temporal: Awaited<ReturnType<typeof startDevServer>> | undefined;
  try {
    say(`building the Dockerfile's stages in ${work}`);
    const runtime = buildImage(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'), work);
    const app = path.join(runtime.dir, runtime.workdir);
    // What `npm ci --omit=dev` left out must really be missing, and the bundle must be there.
    if (fs.existsSync(path.join(app, 'node_modules', 'vitest'))) throw new Error('the runtime stage has devDependencies (vitest)');
    if (!fs.existsSync(path.join(app, 'dist', 'workflow-bundle.js'))) throw new Error('the runtime stage has no dist/workflow-bundle.js');

    temporal = await startDevServer({ port: await freePort(), headless: true, searchAttributes: SEARCH_ATTRIBUTE_TYPES });
    const services = readCompose();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      ...runtime.env,
      DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `image-check-${process.pid}`,
      SERVICE_JWT_SECRET: randomBytes(32).toString('hex'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      AUDIT_SIGNING_KEY: randomBytes(32).toString('base64'),
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      WORKER_METRICS_PORT: String(await freePort()),
      API_METRICS_PORT: String(await freePort()),
    };
    const resolveNode = (a: string[]) => (a[0] === 'node' ? [process.execPath, ...a.slice(1)] : a);

    const migrate = argv(services.migrate.command);
    say(`migrate: ${migrate.join(' ')}`);
    const m = spawnSync(migrate[0], migrate.slice(1), { cwd: app, env, stdio: 'inherit' });
    if (m.status !== 0) throw new Error(`${migrate.join(' ')} failed (exit ${m.status})`);

    say(`CMD: ${runtime.cmd!.join(' ')}`);
    const api = startProcess(resolveNode(runtime.cmd!), app, env, 'api');
    procs.push(api.child);
    await answers(`http://127.0.0.1:${env.PORT}/healthz`, api, 'api');
    await answers(`http://127.0.0.1:${env.PORT}/readyz`, api, 'api');

    const workerCmd = argv(services.worker.command);
    say(`worker: ${workerCmd.join(' ')}`);
    const worker = startProcess(resolveNode(workerCmd), app, env, 'worker');
    procs.push(worker.child);
    await answers(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/healthz`, worker, 'worker');
    say('the image builds and its processes answer');
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : Promise.resolve())));
    await temporal?.stop();
    if (!process.env.KEEP_IMAGE_CHECK) fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`image-check: FAILED: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
