/**
 * A payment is never 404 once its workflow runs (docs/api.md, "A payment before its row"): while its
 * read-model row cannot be written (PostgreSQL refusing it, as when it is shutting down), the id
 * routes answer from its workflow, and the create answers only once the row is committed (its retry
 * under the same Idempotency-Key then answers 201). A 404 (or any answer of a request that did not
 * run) is never kept for replay: the same key runs again once the object is there.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { paymentWorkflow } from '../src/platform/workflows.workflow';
import { samplePaymentDetails } from './helpers/webhooks';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack();

/** The trigger that makes PostgreSQL refuse every write of this account's payment rows (the projection's). */
async function refusePaymentRows(accountId: string): Promise<() => Promise<void>> {
  const name = `refuse_rows_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await stack.db.raw(`
    create function ${name}() returns trigger language plpgsql as $$
    begin
      if new.account_id = '${accountId}' then raise exception 'the database system is shutting down'; end if;
      return new;
    end $$`);
  await stack.db.raw(`create trigger ${name} before insert or update on payments for each row execute function ${name}()`);
  let dropped = false;
  return async () => {
    if (dropped) return;
    dropped = true;
    await stack.db.raw(`drop trigger if exists ${name} on payments`);
    await stack.db.raw(`drop function if exists ${name}()`);
  };
}

describe('a payment whose row is not written yet', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it('is read through its workflow, never a 404; its create answers once the row is committed, its retry then 201', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const allow = await refusePaymentRows(acct.account_id);
    cleanups.push(allow);

    // The create answers once the worker has committed the row (docs/architecture.md, "One writer
    // per aggregate"): while PostgreSQL refuses it, the request reaches its deadline (503).
    const createKey = { 'Idempotency-Key': `create-${randomUUID()}` };
    const created = await stack.http.post('/api/v1/payments', { key, body: validPayment(), headers: createKey });
    expect(created.status).toBe(503);
    const id = await eventually(async () => {
      for await (const run of stack.client.workflow.list({
        query: `WorkflowType = 'paymentWorkflow' AND AccountId = '${acct.account_id}'`,
      }))
        return run.workflowId;
      return undefined;
    });
    expect(await stack.db('payments').where({ id }).first()).toBeUndefined();

    const read = await stack.http.get(`/api/v1/payments/${id}`, { key });
    expect([read.status, read.body.status, read.body.payer_email]).toEqual([200, 'pending_deposit', 'payer@example.com']);
    const history = await stack.http.get(`/api/v1/payments/${id}/history`, { key });
    expect([history.status, history.body.data?.map((h: { to: string }) => h.to)]).toEqual([200, ['pending_deposit']]);
    // Another account, or the other mode, still sees nothing.
    const stranger = await stack.newAccount();
    expect((await stack.http.get(`/api/v1/payments/${id}`, { key: stranger.test_api_key })).status).toBe(404);
    expect((await stack.http.get(`/api/v1/payments/${id}`, { key: acct.live_api_key })).status).toBe(404);

    // PostgreSQL takes the rows again: the create's retry under its key answers 201 once the workflow's
    // projection has written the row, which is there when the answer is.
    await allow();
    const retried = await eventually(async () => {
      const again = await stack.http.post('/api/v1/payments', { key, body: validPayment(), headers: createKey });
      return again.status === 503 ? undefined : again;
    }, 90_000);
    expect([retried.status, retried.body.id]).toEqual([201, id]);
    expect((await stack.db('payments').where({ id }).first())?.status).toBe('pending_deposit');
    const deposited = await stack.http.post(`/api/v1/payments/${id}/deposit`, {
      key,
      body: {},
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect([deposited.status, deposited.body.status]).toEqual([200, 'in_custody']);
    expect((await stack.db('payments').where({ id }).first())?.status).toBe('in_custody');
  });

  it('a 404 under an Idempotency-Key is not kept: the same key runs once the payment exists', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const payment = samplePaymentDetails(acct.account_id);
    const headers = { 'Idempotency-Key': `early-${randomUUID()}` };
    const early = await stack.http.post(`/api/v1/payments/${payment.id}/deposit`, { key, body: {}, headers });
    expect([early.status, early.body.error?.code]).toEqual([404, 'not_found']);
    const stored = await stack.db('idempotency_keys').where({ account_id: acct.account_id, key: headers['Idempotency-Key'] }).first();
    expect(stored?.status_code ?? null).toBeNull();

    // The payment comes into being (its workflow started, as a create does).
    await stack.client.workflow.start(paymentWorkflow, {
      workflowId: payment.id,
      taskQueue: stack.taskQueue,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [{ payment, actor: 'test' }],
    });
    const later = await stack.http.post(`/api/v1/payments/${payment.id}/deposit`, { key, body: {}, headers });
    expect([later.status, later.body.status, later.headers.get('idempotent-replayed')]).toEqual([200, 'in_custody', null]);
  });

  it('a 400 under an Idempotency-Key is not kept: the same request runs again, never replayed', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const headers = { 'Idempotency-Key': `bad-${randomUUID()}` };
    const bad = await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: -1 }), headers });
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'invalid_request']);
    const again = await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: -1 }), headers });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([400, null]);
    expect(await stack.db('payments').where({ account_id: acct.account_id })).toEqual([]);
  });
});
