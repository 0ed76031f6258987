/**
 * What `npm start` needs to know of other processes on this machine (Linux's /proc; elsewhere it
 * learns nothing and goes on as before): who holds a file open, and whether the npm that started it
 * is still there (docs/operations.md, "Stopping `npm start`").
 */
import fs from 'node:fs';
import path from 'node:path';

const readLink = (file: string) => {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
};

const cmdline = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return undefined;
  }
};

const parentOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

/** The processes other than this one that hold `file` (or its SQLite journal and WAL files) open, with their command lines. */
export function processesHolding(file: string): { pid: number; command: string }[] {
  const wanted = new Set(['', '-wal', '-shm', '-journal'].map((s) => path.resolve(file) + s));
  const found: { pid: number; command: string }[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    if (fds.some((fd) => wanted.has(readLink(`/proc/${entry}/fd/${fd}`) ?? ''))) {
      found.push({ pid: Number(entry), command: (cmdline(Number(entry)) ?? '?').slice(0, 200) });
    }
  }
  return found;
}

/**
 * Under `npm run <script>`: the processes between this one and the npm that runs the script, npm
 * included (tsx's wrapper, `sh -c`, npm). Empty when not run by npm, or where /proc is missing.
 */
export function npmLaunchers(): number[] {
  if (!process.env.npm_lifecycle_event) return [];
  const chain: number[] = [];
  for (let pid = parentOf(process.pid); pid !== undefined && pid > 1 && chain.length < 6; pid = parentOf(pid)) {
    chain.push(pid);
    if (/(^|[/\s])npm(-cli\.js)?(\s|$)/.test(cmdline(pid) ?? '')) return chain;
  }
  return [];
}

/** Whether the process still exists (not reaped). */
export function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
