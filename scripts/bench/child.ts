/**
 * The processes a run starts (the service's API and worker, the engine's worker): each a child of
 * the benchmark with its own pid, so that CPU and memory are measured per process. Output goes to a
 * log file; a child that exits before it is ready fails the run with that log's tail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Child {
  name: string;
  pid: number;
  log: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');

/** `node --import tsx <script>` with `env`, ready when `ready()` resolves true (polled every 200 ms). */
export async function startChild(
  name: string,
  script: string,
  env: Record<string, string | undefined>,
  ready: (output: () => string) => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<Child> {
  const log = path.join(os.tmpdir(), `bench-${process.pid}-${name}.log`);
  const out = fs.openSync(log, 'w');
  // BENCH_CPU_PROF_DIR: each child writes V8 CPU profiles (one per thread) to <dir>/<name>/ when it exits (docs/benchmarks.md).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF_DIR, name)}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? -1 : null);
      resolve();
    }),
  );
  const output = () => fs.readFileSync(log, 'utf8');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited} before it was ready:\n${output().slice(-2000)}`);
    if (await ready(output).catch(() => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready within ${timeoutMs / 1000} s:\n${output().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    name,
    pid: child.pid!,
    log,
    async stop() {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

/** Ready once `url` answers 2xx. */
export const answers = (url: string) => async () => (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok;
