/**
 * Ed25519 keys for the custody trail's signed tree heads, with node:crypto only: a key is its
 * 32-byte seed (AUDIT_SIGNING_KEY), a public key its 32 raw bytes (RFC 8032).
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

// DER prefixes of PKCS#8 and SubjectPublicKeyInfo for id-Ed25519 (1.3.101.112), RFC 8410.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function privateKeyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new RangeError('an Ed25519 seed is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The 32 raw bytes of the public half. */
export function rawPublicKey(key: KeyObject): Buffer {
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_PREFIX.length);
}

export function signEd25519(key: KeyObject, message: Buffer): Buffer {
  return sign(null, message, key);
}

export function verifyEd25519(publicKey: Buffer, message: Buffer, signature: Buffer): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}
