/** The custody trail: public key, signed tree head, consistency and a payment's proofs. Parse, call, respond. */
import { scopeOf } from '../tenants/tenancy.rules';
import type { AuditService } from './audit.service';
import { Routes } from '../platform/http/registry';
import { AuditConsistencyQuery, AuditPublicKey, ConsistencyProof, PaymentProof, TreeHead } from '../platform/http/schemas';

export function auditRoutes(audit: AuditService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'payment', 'The payment id (pay_…), as POST /api/v1/payments or GET /api/v1/payments answered it');
  const tag = 'Audit';

  routes.add(
    {
      method: 'get',
      path: '/audit/public_key',
      tag,
      summary: 'The Ed25519 public key that signs tree heads',
      description: 'Published by the workers, which alone hold the signing key. 404 only before the first worker has started.',
      responses: { 200: { description: 'The raw 32-byte key', schema: AuditPublicKey } },
      errors: ['not_found'],
    },
    async (ctx) => {
      ctx.body = await audit.publicKey();
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/audit/tree_head',
      tag,
      summary: 'The latest signed tree head of the custody trail (RFC 9162 Merkle tree)',
      description: 'Signed by a Temporal Schedule every AUDIT_HEAD_INTERVAL. 404 only before the first head is signed.',
      responses: { 200: { description: 'The tree head', schema: TreeHead } },
      errors: ['not_found'],
    },
    async (ctx) => {
      ctx.body = await audit.treeHead();
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/audit/consistency',
      tag,
      summary: 'A consistency proof between two tree sizes (RFC 9162 §2.1.4)',
      description:
        'Proves the tree of size `to` extends the tree of size `from` without changing it. `to` is at most the latest signed size.',
      query: AuditConsistencyQuery,
      responses: { 200: { description: 'The proof', schema: ConsistencyProof } },
      errors: ['not_found'],
    },
    async (ctx, { query: q }) => {
      ctx.body = await audit.consistency(q.from, q.to);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/payments/:id/proof',
      tag,
      summary: "A payment's custody-trail leaves, each with its inclusion proof against the latest signed tree head",
      description:
        'Every status transition, ledger entry and webhook delivery attempt of the payment that the latest signed head covers. Verify offline with examples/verify-proof.ts.',
      responses: { 200: { description: 'The leaves and the head', schema: PaymentProof } },
    },
    async (ctx) => {
      ctx.body = await audit.paymentProof(scopeOf(ctx.state.principal!), ctx.params.id);
    },
  );
  return routes;
}
