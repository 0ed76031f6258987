/**
 * `audit:verify`'s check, pure: rebuild the RFC 9162 tree from the leaves' text in one pass and
 * hold every signed tree head against it. Names the first bad leaf (or the range it must be in).
 */
import { CompactRange, EMPTY_ROOT, leafHash, type Hash } from './merkle.rules';

/** A leaf as the table holds it: its text, the hash written with it, the hash the tree was built from. */
export interface LeafRecord {
  leafIndex: number;
  leaf: string;
  storedHash: Buffer;
  sequencedHash: Buffer | null;
}

export interface HeadRecord {
  treeSize: number;
  rootHash: Buffer;
  timestamp: string;
  signature: Buffer;
}

type CheckResult =
  | { ok: true; leaves: number; heads: number; root: Hash }
  | { ok: false; leafIndex?: number; message: string; leaves: number; heads: number };

export async function checkLog(
  leaves: AsyncIterable<LeafRecord> | Iterable<LeafRecord>,
  heads: readonly HeadRecord[],
  verifySignature: (head: HeadRecord) => boolean,
): Promise<CheckResult> {
  const counts = { leaves: 0, heads: heads.length };
  for (const head of heads) {
    if (!verifySignature(head)) {
      return { ok: false, message: `the tree head of size ${head.treeSize} signed at ${head.timestamp} has a bad signature`, ...counts };
    }
  }
  const bySize = [...heads].sort((a, b) => a.treeSize - b.treeSize);
  let next = 0;
  let lastGood = 0;
  const range = new CompactRange();
  /** The heads of the size just reached must sign exactly the root rebuilt from the text. */
  const checkHeads = (root: Hash): CheckResult | undefined => {
    for (; next < bySize.length && bySize[next].treeSize === range.size; next++) {
      const head = bySize[next];
      if (!head.rootHash.equals(root)) {
        return {
          ok: false,
          leafIndex: lastGood,
          message:
            `the first ${head.treeSize} leaves no longer hash to the root signed at ${head.timestamp}: ` +
            `a leaf in [${lastGood}, ${head.treeSize}) was changed, removed, inserted or reordered; the first bad leaf is at or after ${lastGood}`,
          ...counts,
        };
      }
      lastGood = head.treeSize;
    }
    return undefined;
  };
  const atZero = checkHeads(EMPTY_ROOT);
  if (atZero) return atZero;
  for await (const rec of leaves) {
    const i = range.size;
    counts.leaves = i;
    const bad = (message: string): CheckResult => ({ ok: false, leafIndex: i, message: `leaf ${i}: ${message}`, ...counts });
    if (rec.leafIndex !== i) return bad(`missing (the next leaf in the table is ${rec.leafIndex})`);
    const hash = leafHash(rec.leaf);
    if (!hash.equals(rec.storedHash)) return bad('its text no longer hashes to the leaf hash recorded with it');
    if (!rec.sequencedHash) return bad('the tree node recorded for it is missing');
    if (!hash.equals(rec.sequencedHash)) return bad('its text is not the text the tree was built from');
    range.append(hash);
    const failed = checkHeads(range.root());
    if (failed) return failed;
  }
  counts.leaves = range.size;
  if (next < bySize.length) {
    const head = bySize[next];
    return {
      ok: false,
      leafIndex: range.size,
      message: `leaf ${range.size}: missing, yet the tree head signed at ${head.timestamp} covers ${head.treeSize} leaves`,
      ...counts,
    };
  }
  return { ok: true, ...counts, root: range.root() };
}
