/**
 * Verify a payment's custody-trail proof offline: the JSON of GET /api/v1/payments/:id/proof and
 * the service's Ed25519 public key (GET /api/v1/audit/public_key), with node:crypto only. Copy it.
 *
 *   npx tsx examples/verify-proof.ts proof.json <public key, base64>     (or the proof on stdin: -)
 *
 * Exit 0: the head is signed by that key and every leaf is in the tree it signs (RFC 9162).
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs';

interface Proof {
  tree_head: { tree_size: number; root_hash: string; timestamp: string; signature: string };
  leaves: { leaf_index: number; leaf: string; audit_path: string[] }[];
}

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const leafHash = (leaf: string) => sha256(Buffer.from([0]), Buffer.from(leaf, 'utf8'));
const nodeHash = (l: Buffer, r: Buffer) => sha256(Buffer.from([1]), l, r);

/** RFC 9162 §2.1.3.2. */
export function verifyInclusion(index: number, size: number, hash: Buffer, path: Buffer[], root: Buffer): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = hash;
  for (const p of path) {
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
  return sn === 0 && r.equals(root);
}

/** The signed bytes: {"root_hash":…,"timestamp":…,"tree_size":…}, keys sorted, no whitespace. */
export function verifyTreeHead(head: Proof['tree_head'], publicKey: Buffer): boolean {
  const message = `{"root_hash":${JSON.stringify(head.root_hash)},"timestamp":${JSON.stringify(head.timestamp)},"tree_size":${head.tree_size}}`;
  // SubjectPublicKeyInfo for Ed25519 (RFC 8410) around the 32 raw bytes.
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]);
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(head.signature, 'base64'));
}

/** Every problem found (none: the proof holds). */
export function checkProof(proof: Proof, publicKeyBase64: string): string[] {
  const problems: string[] = [];
  const publicKey = Buffer.from(publicKeyBase64, 'base64');
  if (publicKey.length !== 32) return ['the public key is not 32 bytes of base64'];
  const head = proof.tree_head;
  if (!verifyTreeHead(head, publicKey)) problems.push(`tree head of size ${head.tree_size}: the signature does not verify`);
  const root = Buffer.from(head.root_hash, 'base64');
  for (const l of proof.leaves) {
    const path = l.audit_path.map((p) => Buffer.from(p, 'base64'));
    if (!verifyInclusion(l.leaf_index, head.tree_size, leafHash(l.leaf), path, root)) {
      problems.push(`leaf ${l.leaf_index}: not in the signed tree (changed, or a wrong audit path)`);
    }
  }
  return problems;
}

if (require.main === module) {
  const [file, key] = process.argv.slice(2);
  if (!file || !key) {
    process.stderr.write('usage: verify-proof <proof.json | -> <public key base64>\n');
    process.exit(2);
  }
  const proof = JSON.parse(fs.readFileSync(file === '-' ? 0 : file, 'utf8')) as Proof;
  const problems = checkProof(proof, key);
  for (const p of problems) process.stderr.write(`REJECTED ${p}\n`);
  if (problems.length > 0) process.exit(1);
  const h = proof.tree_head;
  process.stdout.write(`OK: tree head of size ${h.tree_size} signed at ${h.timestamp}; ${proof.leaves.length} leaves included:\n`);
  for (const l of proof.leaves) process.stdout.write(`  ${l.leaf_index}  ${l.leaf}\n`);
}
