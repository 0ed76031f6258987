/**
 * The Merkle tree's edges, beside merkle.test.ts's vectors and properties: the argument checks
 * with their exact messages, malformed proofs refused, and canonical JSON's every type.
 */
import { describe, expect, it } from 'vitest';
import {
  EMPTY_ROOT,
  consistencyRanges,
  inclusionRanges,
  leafHash,
  nodeHash,
  nodeLookup,
  rootOf,
  splitPoint,
  verifyConsistency,
  verifyInclusion,
} from '../../src/audit/merkle.rules';
import { canonicalJson } from '../../src/audit/canonicalJson.rules';

const leaves = ['a', 'b', 'c', 'd', 'e'].map((t) => leafHash(t));

describe('argument checks', () => {
  it('splitPoint needs an integer above 1', () => {
    for (const n of [1, 0, -3, 2.5, Number.NaN]) expect(() => splitPoint(n)).toThrow(new RangeError(`splitPoint needs n > 1, got ${n}`));
    expect([2, 3, 4, 5, 8, 9].map(splitPoint)).toEqual([1, 2, 2, 4, 4, 8]);
  });

  it('inclusionRanges needs a size ≥ 0 and an index inside it', () => {
    expect(() => inclusionRanges(0, -1)).toThrow(new RangeError('tree size must be a non-negative integer, got -1'));
    expect(() => inclusionRanges(0, 1.5)).toThrow(new RangeError('tree size must be a non-negative integer, got 1.5'));
    for (const m of [-1, 5, 6, 0.5])
      expect(() => inclusionRanges(m, 5)).toThrow(new RangeError(`leaf index ${m} is not in a tree of size 5`));
    expect(inclusionRanges(4, 5)).toEqual([{ start: 0, end: 4 }]);
    expect(inclusionRanges(0, 1)).toEqual([]);
  });

  it('consistencyRanges needs two sizes ≥ 0, the first not larger', () => {
    expect(() => consistencyRanges(-1, 5)).toThrow(new RangeError('first size must be a non-negative integer, got -1'));
    expect(() => consistencyRanges(1, 2.5)).toThrow(new RangeError('second size must be a non-negative integer, got 2.5'));
    expect(() => consistencyRanges(6, 5)).toThrow(new RangeError('first size 6 is larger than second size 5'));
    expect(consistencyRanges(0, 5)).toEqual([]);
    expect(consistencyRanges(5, 5)).toEqual([]);
  });

  it('nodeLookup names a node it does not hold', () => {
    const lookup = nodeLookup([{ level: 0, index: 1, hash: leaves[1] }]);
    expect(lookup({ level: 0, index: 1 })).toEqual(leaves[1]);
    expect(() => lookup({ level: 1, index: 0 })).toThrow(new Error('Merkle node 1:0 is not stored'));
  });
});

describe('verifiers refuse what is malformed', () => {
  const root = rootOf(leaves);
  const proof = [leaves[1], nodeHash(leaves[2], leaves[3]), leaves[4]];

  it('leafHash reads text as UTF-8, the same as its bytes', () => {
    expect(leafHash('é')).toEqual(leafHash(Buffer.from('é', 'utf8')));
    expect(leafHash('')).not.toEqual(EMPTY_ROOT);
  });

  it('an inclusion proof: index outside the tree, a short hash, or a proof too long', () => {
    expect(verifyInclusion(0, 5, leaves[0], proof, root)).toBe(true);
    for (const [index, size] of [
      [-1, 5],
      [5, 5],
      [0.5, 5],
      [0, 5.5],
    ]) {
      expect(verifyInclusion(index, size, leaves[0], proof, root), `${index}/${size}`).toBe(false);
    }
    expect(verifyInclusion(0, 5, leaves[0], [leaves[1].subarray(0, 31), ...proof.slice(1)], root)).toBe(false);
    expect(verifyInclusion(0, 5, leaves[0], [...proof, leaves[0]], root)).toBe(false);
    expect(verifyInclusion(0, 1, leaves[0], [leaves[1]], leaves[0])).toBe(false);
  });

  it('a consistency proof: sizes out of order, equal sizes, from 0, empty or short hashes', () => {
    const root3 = rootOf(leaves.slice(0, 3));
    const good = [leaves[2], leaves[0] && nodeHash(leaves[0], leaves[1]), nodeHash(leaves[3], leaves[4])];
    for (const [first, second] of [
      [-1, 5],
      [6, 5],
      [1.5, 5],
      [3, 5.5],
    ]) {
      expect(verifyConsistency(first, second, good, root3, root), `${first}/${second}`).toBe(false);
    }
    expect(verifyConsistency(5, 5, [], root, root)).toBe(true);
    expect(verifyConsistency(5, 5, [leaves[0]], root, root)).toBe(false);
    expect(verifyConsistency(5, 5, [], root3, root)).toBe(false);
    expect(verifyConsistency(0, 5, [], EMPTY_ROOT, root)).toBe(true);
    expect(verifyConsistency(0, 5, [leaves[0]], EMPTY_ROOT, root)).toBe(false);
    expect(verifyConsistency(3, 5, [], root3, root)).toBe(false);
    expect(verifyConsistency(3, 5, [leaves[2].subarray(1), ...good.slice(1)], root3, root)).toBe(false);
  });
});

describe('canonicalJson, every type', () => {
  it('writes booleans, skips undefined members, refuses functions and symbols', () => {
    expect(canonicalJson({ t: true, f: false, u: undefined })).toBe('{"f":false,"t":true}');
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson(-5)).toBe('-5');
    expect(canonicalJson({ b: 1, a: 2, c: 3, ab: 4 })).toBe('{"a":2,"ab":4,"b":1,"c":3}');
    expect(() => canonicalJson(() => 1)).toThrow(new TypeError('canonical JSON cannot hold a function'));
    expect(() => canonicalJson(Symbol('x'))).toThrow(new TypeError('canonical JSON cannot hold a symbol'));
    expect(() => canonicalJson(undefined)).toThrow(new TypeError('canonical JSON cannot hold a undefined'));
  });
});
