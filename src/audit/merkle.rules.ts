/**
 * The custody trail's RFC 9162 Merkle tree (§2.1) and its proofs (§2.1.3–2.1.4); the bytes hashed and signed
 * are canonical JSON (canonicalJson.ts).
 * Pure (node:crypto only, no I/O); not imported by workflows.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type Hash = Buffer;

const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** MTH({}) = SHA-256 of the empty string. */
export const EMPTY_ROOT: Hash = sha256();

/** MTH({d}) = SHA-256(0x00 ‖ d). A string leaf is hashed as its UTF-8 bytes. */
export function leafHash(leaf: Uint8Array | string): Hash {
  return sha256(LEAF_PREFIX, typeof leaf === 'string' ? Buffer.from(leaf, 'utf8') : leaf);
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Hash {
  return sha256(NODE_PREFIX, left, right);
}

const isPowerOfTwo = (n: number) => n > 0 && 2 ** Math.floor(Math.log2(n)) === n;

/** k: the largest power of two smaller than n (n > 1), where the RFC splits D[n]. */
export function splitPoint(n: number): number {
  if (!Number.isSafeInteger(n) || n < 2) throw new RangeError(`splitPoint needs n > 1, got ${n}`);
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A stored perfect subtree: the 2^level leaves from index × 2^level on. Level 0 is a leaf hash. */
export interface NodeRef {
  level: number;
  index: number;
}

/** The leaves [start, end) of the log: every hash a proof carries is MTH of one such range. */
interface LeafRange {
  start: number;
  end: number;
}

/**
 * The perfect subtrees whose hashes make up MTH(D[start:end]) for a range the RFC's recursion
 * produces (start is aligned to the range's power of two): at most log2(n) nodes, left to right.
 */
export function perfectCover(start: number, end: number): NodeRef[] {
  const out: NodeRef[] = [];
  let s = start;
  while (s < end) {
    const size = end - s;
    // The left part of an RFC split is the largest power of two below size (or size itself).
    const k = isPowerOfTwo(size) ? size : splitPoint(size);
    const level = Math.log2(k);
    if (s % k !== 0) throw new RangeError(`range [${start}, ${end}) is not a subtree of the RFC 9162 tree`);
    out.push({ level, index: s / k });
    s += k;
  }
  return out;
}

/** MTH of a range from the hashes of its perfect cover: right-fold, as the RFC's recursion nests them. */
export function foldCover(hashes: Hash[]): Hash {
  if (hashes.length === 0) return EMPTY_ROOT;
  let h = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) h = nodeHash(hashes[i], h);
  return h;
}

const checkSize = (name: string, n: number) => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, got ${n}`);
};

/** RFC 9162 §2.1.3.1 PATH(m, D[n]): the ranges whose hashes form leaf m's inclusion proof, leaf side first. */
export function inclusionRanges(m: number, n: number): LeafRange[] {
  checkSize('tree size', n);
  if (!Number.isSafeInteger(m) || m < 0 || m >= n) throw new RangeError(`leaf index ${m} is not in a tree of size ${n}`);
  const out: LeafRange[] = [];
  const path = (m: number, start: number, n: number) => {
    if (n === 1) return;
    const k = splitPoint(n);
    if (m < k) {
      path(m, start, k);
      out.push({ start: start + k, end: start + n });
    } else {
      path(m - k, start + k, n - k);
      out.push({ start, end: start + k });
    }
  };
  path(m, 0, n);
  return out;
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]) = SUBPROOF(m, D[n], true) for 0 < m < n; empty when m is 0 or n. */
export function consistencyRanges(m: number, n: number): LeafRange[] {
  checkSize('first size', m);
  checkSize('second size', n);
  if (m > n) throw new RangeError(`first size ${m} is larger than second size ${n}`);
  const out: LeafRange[] = [];
  if (m === 0 || m === n) return out;
  const subproof = (m: number, start: number, n: number, b: boolean) => {
    if (m === n) {
      if (!b) out.push({ start, end: start + m });
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      subproof(m, start, k, b);
      out.push({ start: start + k, end: start + n });
    } else {
      subproof(m - k, start + k, n - k, false);
      out.push({ start, end: start + k });
    }
  };
  subproof(m, 0, n, true);
  return out;
}

const refKey = (r: NodeRef) => `${r.level}:${r.index}`;

/**
 * The stored nodes a set of ranges needs (deduplicated): what a repository reads for a proof, so
 * a proof costs O(log n) node reads, never a scan of the log.
 */
export function nodesFor(ranges: LeafRange[]): NodeRef[] {
  const seen = new Map<string, NodeRef>();
  for (const r of ranges) for (const ref of perfectCover(r.start, r.end)) seen.set(refKey(ref), ref);
  return [...seen.values()];
}

/** The proof's hashes from the stored nodes `lookup` finds (it throws on a missing node). */
export function assemble(ranges: LeafRange[], lookup: (ref: NodeRef) => Hash): Hash[] {
  return ranges.map((r) => foldCover(perfectCover(r.start, r.end).map(lookup)));
}

/** A lookup over fetched rows keyed by level and index. */
export function nodeLookup(rows: { level: number; index: number; hash: Hash }[]): (ref: NodeRef) => Hash {
  const map = new Map(rows.map((r) => [refKey(r), r.hash]));
  return (ref) => {
    const h = map.get(refKey(ref));
    if (!h) throw new Error(`Merkle node ${refKey(ref)} is not stored`);
    return h;
  };
}

/** MTH(D[n]) over leaf hashes, straight from the RFC's definition (verification and tests). */
export function rootOf(leafHashes: readonly Hash[], start = 0, end = leafHashes.length): Hash {
  const n = end - start;
  if (n === 0) return EMPTY_ROOT;
  if (n === 1) return leafHashes[start];
  const k = splitPoint(n);
  return nodeHash(rootOf(leafHashes, start, start + k), rootOf(leafHashes, start + k, end));
}

/**
 * Appends leaves one at a time and reports every perfect subtree each append completes; keeps only
 * the frontier (at most log2(n) hashes). The log's sequencer stores what it reports, and
 * `audit:verify` rebuilds the root with it in one pass.
 */
export class CompactRange {
  /** Perfect subtrees covering [0, size), left to right, strictly decreasing levels. */
  private frontier: { level: number; hash: Hash }[];
  size: number;

  constructor(size = 0, frontier: Hash[] = []) {
    this.size = size;
    const cover = perfectCover(0, size);
    if (cover.length !== frontier.length)
      throw new Error(`a tree of size ${size} has ${cover.length} frontier nodes, got ${frontier.length}`);
    this.frontier = cover.map((ref, i) => ({ level: ref.level, hash: frontier[i] }));
  }

  /** Append one leaf hash; returns the nodes completed, leaf first. */
  append(hash: Hash): (NodeRef & { hash: Hash })[] {
    const index = this.size;
    const made: (NodeRef & { hash: Hash })[] = [{ level: 0, index, hash }];
    let node = { level: 0, hash };
    while (this.frontier.length > 0 && this.frontier[this.frontier.length - 1].level === node.level) {
      const left = this.frontier.pop()!;
      node = { level: node.level + 1, hash: nodeHash(left.hash, node.hash) };
      made.push({ level: node.level, index: Math.floor(index / 2 ** node.level), hash: node.hash });
    }
    this.frontier.push(node);
    this.size += 1;
    return made;
  }

  root(): Hash {
    return foldCover(this.frontier.map((f) => f.hash));
  }
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b);

/** RFC 9162 §2.1.3.2: does `proof` show the leaf with this hash at `index` in the tree of `size` with `root`? */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r: Hash = Buffer.from(leaf);
  for (const p of proof) {
    if (p.length !== 32 || sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/**
 * RFC 9162 §2.1.4.2 for 0 < first < second. The RFC defines proofs only there; as in the
 * Certificate Transparency reference code, equal sizes prove with an empty proof and equal roots,
 * and every tree is consistent with the empty one (empty proof).
 */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Uint8Array[],
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && equal(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0 || proof.some((p) => p.length !== 32)) return false;
  const path: Uint8Array[] = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Hash = Buffer.from(path[0]);
  let sr: Hash = Buffer.from(path[0]);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, firstRoot) && equal(sr, secondRoot);
}
