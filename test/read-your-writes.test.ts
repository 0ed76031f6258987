/**
 * One writer per aggregate (docs/architecture.md): an action answers once everything it caused —
 * the read model, the ledger, the trail — is committed by the worker, so the list, the ledger, the
 * balances and the trail read right after the answer show it; the API itself writes no money.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually, useStack, validPayment } from './helpers/stack';
import { twoMilestones } from './helpers/milestones';

describe('an action answers once the worker has committed what it caused', () => {
  const stack = useStack();
  const leavesOf = async (paymentId: string) =>
    (await stack.db('audit_leaves').where({ payment_id: paymentId }).orderBy('id').pluck('entry_key')) as string[];

  it('a refund: the ledger, the balance, the list and the trail read right after the answer show it', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const created = await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: 100 }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    // The create's answer came once its row and its trail leaf were committed.
    expect(await leavesOf(id)).toContain(`transition:${id}:1`);
    expect((await stack.http.post(`/api/v1/payments/${id}/deposit`, { key, body: {} })).status).toBe(200);
    const refunded = await stack.http.post(`/api/v1/payments/${id}/refund`, { key, body: { amount: 40 } });
    expect([refunded.status, refunded.body.amount_refunded]).toEqual([200, 40]);

    // Read at once, with no waiting: each shows the refund.
    const [ledger, balance, list, leaves] = await Promise.all([
      stack.http.get(`/api/v1/payments/${id}/ledger`, { key }),
      stack.http.get('/api/v1/balance', { key }),
      stack.http.get('/api/v1/payments', { key }),
      leavesOf(id),
    ]);
    expect(ledger.body.data.map((e: { type: string }) => e.type)).toEqual(['deposit', 'refund']);
    expect(balance.body.balances).toEqual([expect.objectContaining({ currency: 'USD', deposited: 100, refunded: 40, held: 60 })]);
    expect(list.body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ amount_held: 60, amount_refunded: 40 });
    const refundEntry = (await stack.db('ledger_entries').where({ payment_id: id, version: 3 }).first()) as { id: string };
    expect(leaves).toEqual(expect.arrayContaining([`transition:${id}:3`, `ledger:${refundEntry.id}`]));
  });

  it('a test clock move that releases two milestones at once: both releases are in the ledger read right after the answer', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const created = await stack.http.post('/api/v1/payments', {
      key,
      body: twoMilestones({
        platform_fee: 0,
        milestones: [
          { reference: 'first', amount: 60, auto_release_after_seconds: 3600 },
          { reference: 'second', amount: 40, auto_release_after_seconds: 3600 },
        ],
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await stack.http.post(`/api/v1/payments/${id}/deposit`, { key, body: {} })).status).toBe(200);
    for (const m of created.body.milestones as { id: string }[]) {
      const approved = await stack.http.post(`/api/v1/payments/${id}/milestones/${m.id}/approve`, { key, body: {} });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    }
    // One move fires both auto-releases; its answer comes once both steps are published.
    const moved = await stack.http.post(`/api/v1/test_helpers/payments/${id}/advance`, { key, body: { seconds: 7200 } });
    expect([moved.status, moved.body.status]).toEqual([200, 'released']);
    const ledger = await stack.http.get(`/api/v1/payments/${id}/ledger`, { key });
    // One entry per milestone for each step (docs/money.md): both milestones' releases are there.
    expect(ledger.body.data.map((e: { type: string }) => e.type)).toEqual(['deposit', 'deposit', 'release', 'release']);
  });

  it('a create with every worker down writes nothing from the API; it answers once a worker has committed the payment and its leaf', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const headers = { 'Idempotency-Key': `create-${randomUUID()}` };
    await stack.stopWorker();
    let answer: ReturnType<typeof stack.http.post> | undefined;
    let id = '';
    try {
      answer = stack.http.post('/api/v1/payments', { key, body: validPayment(), headers });
      // The API has done its part once the run exists: it wrote no row of the payment, nor of its history.
      id = await eventually(async () => {
        const page = stack.client.workflow.list({ query: `WorkflowType = 'paymentWorkflow' AND AccountId = '${acct.account_id}'` });
        for await (const run of page) return run.workflowId;
        return undefined;
      });
      expect(await stack.db('payments').where({ account_id: acct.account_id })).toEqual([]);
      expect(await stack.db('payment_events').where({ payment_id: id })).toEqual([]);
    } finally {
      await stack.startWorker();
    }
    // The request may have reached its deadline while no worker ran (503): its retry waits the same way.
    let created = await answer;
    if (created.status === 503) created = await stack.http.post('/api/v1/payments', { key, body: validPayment(), headers });
    expect([created.status, (created.body as { id?: string }).id]).toEqual([201, id]);
    expect((await stack.db('payments').where({ id }).first())?.status).toBe('pending_deposit');
    expect(await leavesOf(id)).toEqual([`transition:${id}:1`]);
  });
});
