/** The custody trail's schemas (src/audit/audit.routes.ts, docs/audit.md). Byte strings are standard base64. */
import { z } from 'zod';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';

// The custody trail (docs/audit.md). Byte strings are standard base64.
const size = (what: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number)
    .describe(what);

export const AuditConsistencyQuery = z
  .object({ from: size('The older tree size'), to: size('The newer tree size, at most the latest signed head’s') })
  .strict();

const base64 = (what: string) => z.string().describe(`${what} (standard base64)`);

export const AuditPublicKey = component(
  'AuditPublicKey',
  z.object({ algorithm: z.literal('Ed25519'), public_key: base64('The 32-byte raw Ed25519 public key') }),
  S.publicKey,
);

export const TreeHead = component(
  'TreeHead',
  z.object({
    tree_size: z.number().int().describe('Leaves in the tree'),
    root_hash: base64('RFC 9162 Merkle tree hash of the first tree_size leaves'),
    timestamp: z.string().describe('When it was signed (ISO 8601 UTC), exactly as signed'),
    signature: base64('Ed25519 over the UTF-8 bytes of {"root_hash":…,"timestamp":…,"tree_size":…}'),
  }),
  S.treeHead,
);

export const ConsistencyProof = component(
  'ConsistencyProof',
  z.object({
    from: z.number().int(),
    to: z.number().int(),
    proof: z.array(base64('A node hash')).describe('RFC 9162 §2.1.4 consistency proof'),
  }),
  S.consistencyProof,
);

export const PaymentProof = component(
  'PaymentProof',
  z.object({
    tree_head: TreeHead.describe('The latest signed tree head; every audit_path is against it'),
    leaves: z.array(
      z.object({
        leaf_index: z.number().int(),
        leaf: z.string().describe('The canonical JSON that was hashed: SHA-256(0x00 ‖ UTF-8 bytes)'),
        audit_path: z.array(base64('A node hash')).describe('RFC 9162 §2.1.3 inclusion proof'),
      }),
    ),
  }),
  S.paymentProof,
);
