/**
 * Files handed to a bank through a directory it collects from (PAYOUT_OUTBOX_DIR, docs/payouts.md):
 * written once, whole or not at all. The content goes to a temporary name first and is flushed to
 * disk, then linked to its final name, which fails rather than replace a file already there; a
 * retried write of the same file (a worker killed after writing, before recording it) finds the same
 * content and succeeds, and a different content under a name already taken is refused. The bank never
 * sees a half-written file, nor one file replaced by another.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

export class OutboxConflict extends Error {
  constructor(readonly file: string) {
    super(`${file} is already in the outbox with other content: a file name is never reused`);
    this.name = 'OutboxConflict';
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Write `content` as `dir/name` once; `written: false` when that exact file was already there. */
export async function writeOutboxFile(dir: string, name: string, content: string): Promise<{ path: string; written: boolean }> {
  if (name !== path.basename(name) || name.startsWith('.')) throw new Error(`not a plain file name: ${name}`);
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, name);
  // A dot name: a collector that skips hidden files never picks up the temporary one.
  const temporary = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o640);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if ((await readFile(target, 'utf8')) !== content) throw new OutboxConflict(target);
    return { path: target, written: false };
  } finally {
    await unlink(temporary);
  }
  await syncDirectory(dir);
  return { path: target, written: true };
}
