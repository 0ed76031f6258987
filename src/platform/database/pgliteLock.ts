/**
 * One process at a time on an embedded PGlite directory. PGlite has no server: two processes
 * opening the same directory each write to it as if alone, and the directory can be left unable to
 * open (`Aborted()`), while neither sees the other's rows. So the first process takes an exclusive
 * lock file holding its pid; a second one is refused with what to do instead. A lock left by a
 * process that died (SIGKILL, crash, container restart) is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'service.lock';

class PgliteLockedError extends Error {}

interface Owner {
  pid: number;
  /** Linux: the owner's start time in clock ticks since boot, so a reused pid is not mistaken for it. */
  started?: string;
  command?: string;
}

/** Field 22 of /proc/<pid>/stat; undefined where there is no /proc or no such process. */
function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(owner: Owner): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.started) {
    const now = startTime(owner.pid);
    if (now !== undefined && now !== owner.started) return false; // the pid now belongs to another process
  }
  return true;
}

function readOwner(file: string): Owner | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Owner;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { pid: -1 }; // unreadable: not a lock this code wrote, so nobody holds it
  }
}

/** Directories locked by this process (so a second open here is refused too, not taken over). */
const held = new Set<string>();

function lockedMessage(dir: string, owner: Owner, whileRunning?: string): string {
  const who = owner.pid === process.pid ? 'this process' : `process ${owner.pid}${owner.command ? ` (${owner.command})` : ''}`;
  return [
    `the embedded database ${dir} is in use by ${who}; PGlite allows one process at a time.`,
    '  Stop `npm start` (or the other process) first, or',
    `  set DATABASE_URL to use PostgreSQL, which any number of processes can share${whileRunning ? ', or' : '.'}`,
    ...(whileRunning ? [`  while \`npm start\` runs, ${whileRunning}.`] : []),
    `  (lock file: ${path.join(dir, LOCK_FILE)})`,
  ].join('\n');
}

/**
 * Take the lock on `dir` (which must exist) or throw PgliteLockedError. Returns `release`, also run
 * when the process exits. `whileRunning`: what the refused command's user can do instead while
 * `npm start` runs (its own alternative, if it has one).
 */
export function lockPgliteDir(dir: string, whileRunning?: string): () => void {
  const resolved = path.resolve(dir);
  const file = path.join(resolved, LOCK_FILE);
  const me: Owner = {
    pid: process.pid,
    started: startTime(process.pid),
    command: process.argv
      .slice(1)
      .map((a) => path.basename(a))
      .join(' ')
      .slice(0, 200),
  };
  const mine = JSON.stringify(me);
  if (held.has(resolved)) throw new PgliteLockedError(lockedMessage(resolved, me, whileRunning));
  // Written in full to a private file, then linked into place: the lock appears atomically, never empty.
  const tmp = `${file}.${process.pid}.${Date.now()}`;
  fs.writeFileSync(tmp, mine);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(tmp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readOwner(file);
      if (owner === undefined) continue; // released in between: try again
      // Our own pid without our own open: a lock left by an earlier life of this pid (a container restarted).
      if (owner.pid !== process.pid && alive(owner)) throw new PgliteLockedError(lockedMessage(resolved, owner, whileRunning));
      if (attempt >= 5) throw new PgliteLockedError(lockedMessage(resolved, owner, whileRunning));
      // Stale. Move it aside rather than delete it, and check that what moved is the stale lock
      // we read: another process may have taken it over in between, and then it goes back.
      const aside = `${file}.stale.${process.pid}`;
      try {
        fs.renameSync(file, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = readOwner(aside);
      if (moved && moved.pid !== owner.pid && alive(moved)) {
        try {
          fs.linkSync(aside, file);
        } catch {
          /* someone else holds it now; they are refused or refuse us on the next round */
        }
      }
      fs.rmSync(aside, { force: true });
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  held.add(resolved);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    held.delete(resolved);
    process.removeListener('exit', release);
    try {
      if (fs.readFileSync(file, 'utf8') === mine) fs.rmSync(file);
    } catch {
      /* already gone */
    }
  };
  process.once('exit', release);
  return release;
}
