/** A long child process on a terminal: a line at a fixed interval with the elapsed time, so a wait is never silent. */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves to the child's exit code (null when a signal ended it) once it exits; until then, every
 * `everyMs`, logs `<what>: <n> s elapsed`.
 */
export function waitReporting(child: ChildProcess, what: string, log: (msg: string) => void, everyMs = 10_000): Promise<number | null> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => log(`${what}: ${Math.round((Date.now() - started) / 1000)} s elapsed`), everyMs);
    child.once('error', (err) => {
      clearInterval(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearInterval(timer);
      resolve(code);
    });
  });
}
