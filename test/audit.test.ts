/**
 * The custody trail through a real stack: transitions and webhook attempts become leaves, the
 * Temporal Schedule signs heads, and the API's proofs verify offline with examples/verify-proof.ts.
 */
import { describe, expect, it } from 'vitest';
import { verifyConsistency } from '../src/audit/merkle.rules';
import { auditScheduleId } from '../src/audit/audit.service';
import { checkProof, verifyTreeHead } from '../examples/verify-proof';
import { startReceiver } from './helpers/receiver';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack({ env: { WEBHOOK_RETRY_INITIAL_INTERVAL: '100ms', WEBHOOK_MAX_ATTEMPTS: '2' } });

/** Ask the schedule for a head now (as its interval would) and wait until one covers `leaves` of the payment. */
async function proofWith(key: string, paymentId: string, leaves: (l: { kind: string }[]) => boolean) {
  return eventually(
    async () => {
      await stack.client.schedule.getHandle(auditScheduleId(stack.taskQueue)).trigger();
      const res = await stack.http.get(`/api/v1/payments/${paymentId}/proof`, { key });
      if (res.status !== 200) return undefined;
      const parsed = res.body.leaves.map((l: { leaf: string }) => JSON.parse(l.leaf));
      return leaves(parsed) ? res.body : undefined;
    },
    30_000,
    'a signed tree head covering the payment',
  );
}

describe('custody trail API', () => {
  it('proves every transition and webhook attempt of a payment against a signed head, verifiable offline', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const acct = await stack.newAccount();
      const key = acct.test_api_key;
      await stack.http.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url, events: ['payment.deposited'] } });
      const p = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body;
      expect((await stack.http.post(`/api/v1/payments/${p.id}/deposit`, { key })).status).toBe(200);

      const proof = await proofWith(
        key,
        p.id,
        (ls) => ls.some((l) => l.kind === 'webhook.attempt') && ls.some((l) => l.kind === 'ledger.entry'),
      );
      const leaves = proof.leaves.map((l: { leaf: string }) => JSON.parse(l.leaf));
      const transitions = leaves.filter((l: { kind: string }) => l.kind === 'payment.transition');
      expect(transitions.map((l: { version: number; to: string }) => [l.version, l.to])).toEqual([
        [1, 'pending_deposit'],
        [2, 'in_custody'],
      ]);
      expect(transitions[1]).toMatchObject({
        payment_id: p.id,
        account_id: acct.account_id,
        livemode: false,
        amount_minor: 12550,
        currency: 'USD',
      });
      const entry = leaves.find((l: { kind: string }) => l.kind === 'ledger.entry');
      expect(entry).toMatchObject({ payment_id: p.id, version: 2, type: 'deposit', currency: 'USD', amount_exponent: 2 });
      expect(entry.postings).toEqual([
        { ledger_account: 'payer_deposits', amount_minor: -12550 },
        { ledger_account: 'custody', amount_minor: 12550 },
      ]);
      const attempt = leaves.find((l: { kind: string }) => l.kind === 'webhook.attempt');
      expect(attempt).toMatchObject({ payment_id: p.id, event: 'payment.deposited', attempt: 1, status_code: 200, outcome: 'succeeded' });
      // The leaf is the canonical JSON that was hashed: sorted keys, no whitespace.
      expect(proof.leaves[0].leaf).toBe(JSON.stringify(Object.fromEntries(Object.entries(leaves[0]).sort(([a], [b]) => (a < b ? -1 : 1)))));
      expect(Object.keys(proof.tree_head).sort()).toEqual(['root_hash', 'signature', 'timestamp', 'tree_size']);
      expect(Object.keys(proof.leaves[0]).sort()).toEqual(['audit_path', 'leaf', 'leaf_index']);

      const pk = (await stack.http.get('/api/v1/audit/public_key', { key })).body;
      expect(pk.algorithm).toBe('Ed25519');
      expect(Buffer.from(pk.public_key, 'base64')).toHaveLength(32);
      expect(checkProof(proof, pk.public_key)).toEqual([]);

      // A changed leaf, a wrong index or another key is rejected offline.
      const changed = structuredClone(proof);
      changed.leaves[1].leaf = changed.leaves[1].leaf.replace('"amount_minor":12550', '"amount_minor":1');
      expect(checkProof(changed, pk.public_key)).toEqual([expect.stringContaining(`leaf ${proof.leaves[1].leaf_index}`)]);
      const forged = structuredClone(proof);
      forged.tree_head.tree_size += 1;
      expect(checkProof(forged, pk.public_key)[0]).toMatch(/signature/);
      expect(checkProof(proof, Buffer.alloc(32, 1).toString('base64'))[0]).toMatch(/signature/);
    } finally {
      await receiver.close();
    }
  });

  it('shows a payment only to its account and mode', async () => {
    const acct = await stack.newAccount();
    const other = await stack.newAccount();
    const p = (await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).body;
    await proofWith(acct.test_api_key, p.id, (ls) => ls.length === 1);
    expect((await stack.http.get(`/api/v1/payments/${p.id}/proof`, { key: other.test_api_key })).status).toBe(404);
    expect((await stack.http.get(`/api/v1/payments/${p.id}/proof`, { key: acct.live_api_key })).status).toBe(404);
    expect((await stack.http.get(`/api/v1/payments/pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F/proof`, { key: acct.test_api_key })).status).toBe(404);
    expect((await stack.http.get(`/api/v1/payments/${p.id}/proof`)).status).toBe(401);
  });

  it('signs heads that are consistent with each other, and proves it', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const pk = (await stack.http.get('/api/v1/audit/public_key', { key })).body.public_key;
    const first = (await stack.http.get('/api/v1/audit/tree_head', { key })).body;
    expect(verifyTreeHead(first, Buffer.from(pk, 'base64'))).toBe(true);
    const p = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body;
    await proofWith(key, p.id, (ls) => ls.length === 1);
    const second = (await stack.http.get('/api/v1/audit/tree_head', { key })).body;
    expect(second.tree_size).toBeGreaterThan(first.tree_size);
    expect(verifyTreeHead(second, Buffer.from(pk, 'base64'))).toBe(true);

    const res = await stack.http.get(`/api/v1/audit/consistency?from=${first.tree_size}&to=${second.tree_size}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.from).toBe(first.tree_size);
    expect(res.body.to).toBe(second.tree_size);
    const proof = res.body.proof.map((h: string) => Buffer.from(h, 'base64'));
    const root = (h: { root_hash: string }) => Buffer.from(h.root_hash, 'base64');
    expect(verifyConsistency(first.tree_size, second.tree_size, proof, root(first), root(second))).toBe(true);
    expect(verifyConsistency(first.tree_size, second.tree_size, proof.slice(1), root(first), root(second))).toBe(false);
  });

  it('refuses bad sizes with a 400 naming the field', async () => {
    const { test_api_key: key } = await stack.newAccount();
    const head = (await stack.http.get('/api/v1/audit/tree_head', { key })).body;
    const cases: [string, string][] = [
      ['from=abc&to=1', 'from'],
      ['from=-1&to=1', 'from'],
      ['from=1.5&to=2', 'from'],
      ['to=1', 'from'],
      ['from=0', 'to'],
      [`from=0&to=${head.tree_size + 1000}`, 'to'],
      [`from=2&to=1`, 'from'],
      ['from=0&to=1&extra=1', 'extra'],
    ];
    for (const [query, field] of cases) {
      const res = await stack.http.get(`/api/v1/audit/consistency?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe('invalid_request');
      expect(JSON.stringify(res.body.error.details), query).toContain(field);
    }
  });

  it('PostgreSQL refuses to change or remove a leaf', async () => {
    await expect(stack.db('audit_leaves').update({ leaf: 'x' }).whereNotNull('leaf_index')).rejects.toThrow(/append-only/);
    await expect(stack.db('audit_leaves').del()).rejects.toThrow(/append-only/);
    await expect(stack.db.raw('TRUNCATE audit_leaves CASCADE')).rejects.toThrow(/append-only/);
    await expect(stack.db('audit_tree_heads').del()).rejects.toThrow(/append-only/);
    await expect(stack.db('audit_nodes').update({ hash: Buffer.alloc(32) })).rejects.toThrow(/append-only/);
  });
});
