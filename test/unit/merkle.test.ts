/**
 * The Merkle tree against the Certificate Transparency reference vectors (RFC 9162 hashing) and
 * fast-check properties: every proof verifies, and a changed, removed, inserted or reordered leaf fails.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompactRange,
  EMPTY_ROOT,
  assemble,
  consistencyRanges,
  foldCover,
  inclusionRanges,
  leafHash,
  nodesFor,
  perfectCover,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type Hash,
  type NodeRef,
} from '../../src/audit/merkle.rules';
import { canonicalJson, treeHeadMessage } from '../../src/audit/canonicalJson.rules';

const hd = (hex: string) => Buffer.from(hex, 'hex');

// github.com/transparency-dev/merkle testonly/constants.go (LeafInputs, RootHashes) and
// proof/verify_test.go (inclusionProofs with 1-based leaf numbers, consistencyProofs).
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hd);
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hd);
const LEAF_HASHES = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
  '0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7',
  '07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7',
  'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
  '4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658',
  'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
  '46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1',
].map(hd);
const INCLUSION: { leaf: number; size: number; proof: string[] }[] = [
  {
    leaf: 1,
    size: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    leaf: 6,
    size: 8,
    proof: [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  { leaf: 3, size: 3, proof: ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125'] },
  {
    leaf: 2,
    size: 5,
    proof: [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  },
];
const CONSISTENCY: { size1: number; size2: number; proof: string[] }[] = [
  { size1: 1, size2: 1, proof: [] },
  {
    size1: 1,
    size2: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    size1: 6,
    size2: 8,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  {
    size1: 2,
    size2: 5,
    proof: [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  },
  {
    size1: 6,
    size2: 7,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
];

/** An in-memory log with the same stored nodes the database keeps (every perfect subtree). */
function memoryLog(leaves: readonly Uint8Array[]) {
  const nodes = new Map<string, Hash>();
  const range = new CompactRange();
  for (const leaf of leaves) for (const n of range.append(leafHash(leaf))) nodes.set(`${n.level}:${n.index}`, n.hash);
  const lookup = (ref: NodeRef) => {
    const h = nodes.get(`${ref.level}:${ref.index}`);
    if (!h) throw new Error(`missing ${ref.level}:${ref.index}`);
    return h;
  };
  return {
    root: (n: number) => foldCover(perfectCover(0, n).map(lookup)),
    inclusion: (m: number, n: number) => assemble(inclusionRanges(m, n), lookup),
    consistency: (m: number, n: number) => assemble(consistencyRanges(m, n), lookup),
    compactRoot: () => range.root(),
  };
}

const hex = (hs: Hash[]) => hs.map((h) => h.toString('hex'));

describe('RFC 9162 hashing against the Certificate Transparency reference vectors', () => {
  it('hashes leaves with the 0x00 prefix', () => {
    expect(hex(LEAVES.map((l) => leafHash(l)))).toEqual(hex(LEAF_HASHES));
  });

  it('computes the root of every size 0..8 (not padded to a power of two)', () => {
    const log = memoryLog(LEAVES);
    expect(EMPTY_ROOT.toString('hex')).toBe(ROOTS[0].toString('hex'));
    for (let n = 0; n <= 8; n++) {
      expect(rootOf(LEAVES.slice(0, n).map((l) => leafHash(l))).toString('hex'), `size ${n}`).toBe(ROOTS[n].toString('hex'));
      expect(log.root(n).toString('hex'), `stored nodes, size ${n}`).toBe(ROOTS[n].toString('hex'));
    }
    expect(log.compactRoot().toString('hex')).toBe(ROOTS[8].toString('hex'));
  });

  it('generates and verifies the reference inclusion proofs', () => {
    const log = memoryLog(LEAVES);
    for (const v of INCLUSION) {
      const m = v.leaf - 1;
      expect(hex(log.inclusion(m, v.size)), `leaf ${m} of ${v.size}`).toEqual(v.proof);
      expect(verifyInclusion(m, v.size, LEAF_HASHES[m], v.proof.map(hd), ROOTS[v.size])).toBe(true);
      // Corruptions the reference test probes: wrong index, wrong size, wrong leaf, wrong root, bit flips, garbage.
      const proof = v.proof.map(hd);
      expect(verifyInclusion(m + 1, v.size, LEAF_HASHES[m], proof, ROOTS[v.size])).toBe(false);
      expect(verifyInclusion(m ^ 2, v.size, LEAF_HASHES[m], proof, ROOTS[v.size])).toBe(false);
      expect(verifyInclusion(m, v.size * 2, LEAF_HASHES[m], proof, ROOTS[v.size])).toBe(false);
      expect(verifyInclusion(m, v.size, leafHash('WrongLeaf'), proof, ROOTS[v.size])).toBe(false);
      expect(verifyInclusion(m, v.size, LEAF_HASHES[m], proof, EMPTY_ROOT)).toBe(false);
      expect(verifyInclusion(m, v.size, LEAF_HASHES[m], [...proof, ROOTS[v.size]], ROOTS[v.size])).toBe(false);
      expect(verifyInclusion(m, v.size, LEAF_HASHES[m], proof.slice(0, -1), ROOTS[v.size])).toBe(false);
      for (let i = 0; i < proof.length; i++) {
        const flipped = proof.map((p) => Buffer.from(p));
        flipped[i][0] ^= 8;
        expect(verifyInclusion(m, v.size, LEAF_HASHES[m], flipped, ROOTS[v.size]), `flipped proof[${i}]`).toBe(false);
      }
    }
    expect(log.inclusion(0, 1)).toEqual([]);
    expect(verifyInclusion(0, 1, LEAF_HASHES[0], [], ROOTS[1])).toBe(true);
    expect(verifyInclusion(0, 0, LEAF_HASHES[0], [], EMPTY_ROOT)).toBe(false);
  });

  it('generates and verifies the reference consistency proofs', () => {
    const log = memoryLog(LEAVES);
    for (const v of CONSISTENCY) {
      expect(hex(log.consistency(v.size1, v.size2)), `${v.size1} → ${v.size2}`).toEqual(v.proof);
      const proof = v.proof.map(hd);
      expect(verifyConsistency(v.size1, v.size2, proof, ROOTS[v.size1], ROOTS[v.size2])).toBe(true);
      if (proof.length === 0) continue;
      expect(verifyConsistency(v.size1 - 1, v.size2, proof, ROOTS[v.size1], ROOTS[v.size2])).toBe(false);
      expect(verifyConsistency(v.size1 + 1, v.size2, proof, ROOTS[v.size1], ROOTS[v.size2])).toBe(false);
      expect(verifyConsistency(v.size1, v.size2, proof, ROOTS[v.size2], ROOTS[v.size1])).toBe(false);
      expect(verifyConsistency(v.size1, v.size2, [], ROOTS[v.size1], ROOTS[v.size2])).toBe(false);
      expect(verifyConsistency(v.size1, v.size2, proof.slice(0, -1), ROOTS[v.size1], ROOTS[v.size2])).toBe(false);
      expect(verifyConsistency(v.size1, v.size2, [...proof, ROOTS[v.size2]], ROOTS[v.size1], ROOTS[v.size2])).toBe(false);
      expect(verifyConsistency(v.size1, v.size2, [proof[0], ...proof], ROOTS[v.size1], ROOTS[v.size2])).toBe(false);
      for (let i = 0; i < proof.length; i++) {
        const flipped = proof.map((p) => Buffer.from(p));
        flipped[i][0] ^= 16;
        expect(verifyConsistency(v.size1, v.size2, flipped, ROOTS[v.size1], ROOTS[v.size2]), `flipped proof[${i}]`).toBe(false);
      }
    }
    // The sizes that are always consistent, and time travel.
    expect(verifyConsistency(0, 5, [], EMPTY_ROOT, ROOTS[5])).toBe(true);
    expect(verifyConsistency(3, 3, [], ROOTS[3], ROOTS[4])).toBe(false);
    expect(verifyConsistency(4, 3, [], ROOTS[4], ROOTS[3])).toBe(false);
  });

  it('reads only O(log n) stored nodes for a proof', () => {
    const n = 1_000_003;
    for (const m of [0, 1, 524_287, 524_288, 999_999, n - 1]) {
      expect(nodesFor(inclusionRanges(m, n)).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
      expect(nodesFor(consistencyRanges(m + 1, n)).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
    }
  });
});

describe('properties', () => {
  const leavesArb = fc.array(fc.uint8Array({ maxLength: 8 }), { minLength: 1, maxLength: 70 });

  it('every inclusion proof verifies against the root of its size', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const log = memoryLog(leaves);
        const n = 1 + (a % leaves.length);
        const m = b % n;
        const root = rootOf(leaves.slice(0, n).map((l) => leafHash(l)));
        expect(log.root(n).equals(root)).toBe(true);
        expect(verifyInclusion(m, n, leafHash(leaves[m]), log.inclusion(m, n), root)).toBe(true);
      }),
    );
  });

  it('every consistency proof between two sizes verifies', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const log = memoryLog(leaves);
        const n = 1 + (a % leaves.length);
        const m = b % (n + 1);
        expect(verifyConsistency(m, n, log.consistency(m, n), log.root(m), log.root(n))).toBe(true);
      }),
    );
  });

  /** The tampered log the properties compare with: each edit an auditor must notice. */
  const tamperings = fc.oneof(
    fc.constant('change' as const),
    fc.constant('remove' as const),
    fc.constant('insert' as const),
    fc.constant('reorder' as const),
  );

  function tamper(leaves: Uint8Array[], how: 'change' | 'remove' | 'insert' | 'reorder', at: number): Uint8Array[] | undefined {
    const out = leaves.map((l) => Uint8Array.from(l));
    const i = at % leaves.length;
    if (how === 'change') out[i] = Uint8Array.from([...out[i], 0x2a]);
    if (how === 'remove') out.splice(i, 1);
    if (how === 'insert') out.splice(i, 0, Uint8Array.from([0xff, i & 0xff]));
    if (how === 'reorder') {
      const j = (i + 1) % leaves.length;
      if (Buffer.compare(out[i], out[j]) === 0) return undefined; // swapping equal leaves changes nothing
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  it('a changed, removed, inserted or reordered leaf no longer matches the signed root', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 8 }), { minLength: 2, maxLength: 40 }), tamperings, fc.nat(), (leaves, how, at) => {
        const tampered = tamper(leaves, how, at);
        if (!tampered) return;
        const signedRoot = rootOf(leaves.map((l) => leafHash(l)));
        const signedSize = leaves.length;
        // audit:verify's check: the first `signedSize` leaves of the table must hash to the signed root.
        const rebuilt = rootOf(tampered.slice(0, signedSize).map((l) => leafHash(l)));
        const sameSize = tampered.length >= signedSize;
        expect(sameSize && rebuilt.equals(signedRoot)).toBe(false);
      }),
    );
  });

  it('an inclusion proof of one leaf never verifies for another leaf or index', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const n = leaves.length;
        const m = a % n;
        const other = b % n;
        const log = memoryLog(leaves);
        const root = log.root(n);
        const proof = log.inclusion(m, n);
        // Only among distinct leaves: two equal leaves in mirror positions share their proofs (found by fast-check).
        const distinct = new Set(leaves.map((l) => Buffer.from(l).toString('hex'))).size === n;
        if (other !== m && distinct) expect(verifyInclusion(other, n, leafHash(leaves[m]), proof, root)).toBe(false);
        const changed = Uint8Array.from([...leaves[m], 1]);
        expect(verifyInclusion(m, n, leafHash(changed), proof, root)).toBe(false);
      }),
    );
  });
});

describe('canonical JSON', () => {
  it('sorts keys, drops whitespace, keeps integers only', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x"y'], c: { z: 10n, y: -0 } })).toBe(
      '{"a":[true,null,"x\\"y"],"b":1,"c":{"y":0,"z":10}}',
    );
    expect(canonicalJson({ é: 1, e: 2, E: 3 })).toBe('{"E":3,"e":2,"é":1}');
    expect(() => canonicalJson({ amount: 125.5 })).toThrow(/integers only/);
    expect(() => canonicalJson(2 ** 53)).toThrow(/integers only/);
    expect(() => canonicalJson(Number.NaN)).toThrow(/integers only/);
  });

  it('signs a tree head as {"root_hash","timestamp","tree_size"} in that order', () => {
    const message = treeHeadMessage({ tree_size: 8, root_hash: ROOTS[8].toString('base64'), timestamp: '2026-11-23T14:00:00.000Z' });
    expect(message.toString('utf8')).toBe(
      `{"root_hash":"${ROOTS[8].toString('base64')}","timestamp":"2026-11-23T14:00:00.000Z","tree_size":8}`,
    );
  });
});
