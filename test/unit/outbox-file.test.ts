/** The payout outbox's files (src/payouts/outboxFile.ts): written once and whole, a retry of the same file harmless. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutboxConflict, writeOutboxFile } from '../../src/payouts/outboxFile';

const newDir = () => mkdtempSync(path.join(tmpdir(), 'outbox-'));

describe('outbox files', () => {
  it('are written under their name, creating the directory, with no temporary file left', async () => {
    const dir = path.join(newDir(), 'outbox');
    expect(await writeOutboxFile(dir, 'MSG-1.xml', '<a/>')).toEqual({ path: path.join(dir, 'MSG-1.xml'), written: true });
    expect(readFileSync(path.join(dir, 'MSG-1.xml'), 'utf8')).toBe('<a/>');
    expect(readdirSync(dir)).toEqual(['MSG-1.xml']);
  });

  it('a retry of the same file succeeds without writing; other content under a taken name is refused and the file kept', async () => {
    const dir = newDir();
    await writeOutboxFile(dir, 'MSG-1.xml', '<a/>');
    expect(await writeOutboxFile(dir, 'MSG-1.xml', '<a/>')).toMatchObject({ written: false });
    await expect(writeOutboxFile(dir, 'MSG-1.xml', '<b/>')).rejects.toBeInstanceOf(OutboxConflict);
    expect(readFileSync(path.join(dir, 'MSG-1.xml'), 'utf8')).toBe('<a/>');
    expect(readdirSync(dir)).toEqual(['MSG-1.xml']);
  });

  it('never replaces a file another writer put there first', async () => {
    const dir = newDir();
    writeFileSync(path.join(dir, 'MSG-2.xml'), 'theirs');
    await expect(writeOutboxFile(dir, 'MSG-2.xml', 'ours')).rejects.toThrow(/already in the outbox/);
    expect(readFileSync(path.join(dir, 'MSG-2.xml'), 'utf8')).toBe('theirs');
  });

  it('refuse a name that is a path or hidden', async () => {
    const dir = newDir();
    for (const name of ['../x.xml', 'a/b.xml', '.x.xml'])
      await expect(writeOutboxFile(dir, name, 'x'), name).rejects.toThrow(/plain file name/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
