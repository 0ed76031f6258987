/** `audit:verify`'s check: the tree rebuilt from the leaves' text against every signed head, naming the first bad leaf. */
import { describe, expect, it } from 'vitest';
import { type HeadRecord, type LeafRecord, checkLog } from '../../src/audit/trailCheck.rules';
import { CompactRange, EMPTY_ROOT, leafHash } from '../../src/audit/merkle.rules';

const texts = ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'];
const leaves = (): LeafRecord[] =>
  texts.map((leaf, leafIndex) => ({ leafIndex, leaf, storedHash: leafHash(leaf), sequencedHash: leafHash(leaf) }));
/** The root of the first `n` leaves. */
const rootAt = (n: number) => {
  const range = new CompactRange();
  for (const t of texts.slice(0, n)) range.append(leafHash(t));
  return n === 0 ? EMPTY_ROOT : range.root();
};
const head = (treeSize: number, rootHash = rootAt(treeSize)): HeadRecord => ({
  treeSize,
  rootHash,
  timestamp: `t${treeSize}`,
  signature: Buffer.from('sig'),
});
const good = () => true;

describe('checkLog', () => {
  it('passes a sound log, heads in any order, from an async source too', async () => {
    const heads = [head(5), head(0), head(2), head(2)];
    expect(await checkLog(leaves(), heads, good)).toEqual({ ok: true, leaves: 5, heads: 4, root: rootAt(5) });
    async function* stream() {
      yield* leaves();
    }
    expect(await checkLog(stream(), [head(3)], good)).toEqual({ ok: true, leaves: 5, heads: 1, root: rootAt(5) });
    expect(await checkLog([], [], good)).toEqual({ ok: true, leaves: 0, heads: 0, root: EMPTY_ROOT });
  });

  it('refuses a head with a bad signature before reading any leaf', async () => {
    const heads = [head(2), head(5)];
    expect(await checkLog(leaves(), heads, (h) => h.treeSize !== 5)).toEqual({
      ok: false,
      message: 'the tree head of size 5 signed at t5 has a bad signature',
      leaves: 0,
      heads: 2,
    });
  });

  it('names a missing leaf, a changed text and a missing or different tree node', async () => {
    const gap = leaves().filter((l) => l.leafIndex !== 2);
    expect(await checkLog(gap, [], good)).toEqual({
      ok: false,
      leafIndex: 2,
      message: 'leaf 2: missing (the next leaf in the table is 3)',
      leaves: 2,
      heads: 0,
    });
    const changed = leaves();
    changed[3] = { ...changed[3], leaf: '{"n":33}' };
    expect(await checkLog(changed, [], good)).toEqual({
      ok: false,
      leafIndex: 3,
      message: 'leaf 3: its text no longer hashes to the leaf hash recorded with it',
      leaves: 3,
      heads: 0,
    });
    const unsequenced = leaves();
    unsequenced[1] = { ...unsequenced[1], sequencedHash: null };
    expect(await checkLog(unsequenced, [], good)).toMatchObject({
      ok: false,
      leafIndex: 1,
      message: 'leaf 1: the tree node recorded for it is missing',
    });
    const rewritten = leaves();
    rewritten[4] = { ...rewritten[4], leaf: '{"n":44}', storedHash: leafHash('{"n":44}') };
    expect(await checkLog(rewritten, [], good)).toMatchObject({
      ok: false,
      leafIndex: 4,
      message: 'leaf 4: its text is not the text the tree was built from',
    });
  });

  it('a head whose root no longer matches names the range the bad leaf is in', async () => {
    const heads = [head(2), head(4, rootAt(3))];
    expect(await checkLog(leaves(), heads, good)).toEqual({
      ok: false,
      leafIndex: 2,
      message:
        'the first 4 leaves no longer hash to the root signed at t4: a leaf in [2, 4) was changed, removed, inserted or reordered; ' +
        'the first bad leaf is at or after 2',
      leaves: 3,
      heads: 2,
    });
    expect(await checkLog(leaves(), [head(0, rootAt(1))], good)).toMatchObject({
      ok: false,
      leafIndex: 0,
      message: expect.stringContaining('the first 0 leaves no longer hash to the root signed at t0'),
    });
  });

  it('a head covering more leaves than the table holds: the first missing one', async () => {
    expect(await checkLog(leaves().slice(0, 3), [head(2), head(5)], good)).toEqual({
      ok: false,
      leafIndex: 3,
      message: 'leaf 3: missing, yet the tree head signed at t5 covers 5 leaves',
      leaves: 3,
      heads: 2,
    });
  });
});
