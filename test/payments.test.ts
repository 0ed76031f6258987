import { describe, expect, it } from 'vitest';
import type { ClientAction, PaymentStatus } from '../src/payments/paymentTypes.rules';
import { getHistoryQuery, getPaymentQuery, transitionSignal, actionUpdate } from '../src/platform/workflows.workflow';
import { eventually, startStack, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const acct = useAccount(stack);

async function create(over: Record<string, unknown> = {}) {
  const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment(over) });
  expect(res.status).toBe(201);
  return res.body;
}

async function act(id: string, action: string, body?: unknown) {
  return stack.http.post(`/api/v1/payments/${id}/${action}`, { key: acct.test_api_key, body });
}

/** The actions that lead from pending_deposit to each status. */
const PATH_TO: Record<PaymentStatus, string[]> = {
  pending_deposit: [],
  in_custody: ['deposit'],
  pending_release: ['deposit', 'approve'],
  disputed: ['deposit', 'dispute'],
  released: ['deposit', 'approve', 'release'],
  cancelled: ['cancel'],
  refunded: ['deposit', 'refund'],
};

async function paymentIn(status: PaymentStatus) {
  const p = await create();
  for (const action of PATH_TO[status]) expect((await act(p.id, action)).status).toBe(200);
  return p.id as string;
}

describe('payment lifecycle over HTTP', () => {
  it('create → deposit → approve → release, with history and read model in step', async () => {
    const p = await create({ metadata: { order: '1001' } });
    expect(p).toMatchObject({ status: 'pending_deposit', amount: 125.5, currency: 'USD', livemode: false, metadata: { order: '1001' } });
    expect(p.id).toMatch(/^pay_[0-9A-HJKMNP-TV-Z]{26}$/);
    for (const [action, status] of [
      ['deposit', 'in_custody'],
      ['approve', 'pending_release'],
      ['release', 'released'],
    ]) {
      const res = await act(p.id, action, { reason: `because ${action}` });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
    const got = await stack.http.get(`/api/v1/payments/${p.id}`, { key: acct.test_api_key });
    expect(got.body.status).toBe('released');
    const events = await stack.http.get(`/api/v1/payments/${p.id}/history`, { key: acct.test_api_key });
    // The history's earlier path answers the same, and the document marks it deprecated.
    expect((await stack.http.get(`/api/v1/payments/${p.id}/events`, { key: acct.test_api_key })).body).toEqual(events.body);
    const paths = (await stack.http.get('/api/v1/openapi.json')).body.paths;
    expect(paths['/api/v1/payments/{id}/events'].get.deprecated).toBe(true);
    expect(paths['/api/v1/payments/{id}/history'].get.deprecated).toBeUndefined();
    expect(events.body.data.map((e: any) => [e.action, e.from, e.to, e.event])).toEqual([
      ['create', null, 'pending_deposit', 'payment.created'],
      ['deposit', 'pending_deposit', 'in_custody', 'payment.deposited'],
      ['approve', 'in_custody', 'pending_release', 'payment.approved'],
      ['release', 'pending_release', 'released', 'payment.released'],
    ]);
    expect(events.body.data[1]).toMatchObject({ reason: 'because deposit', actor: expect.stringMatching(/^key_/) });
    const history = await stack.client.workflow.getHandle(p.id).query(getHistoryQuery);
    expect(history.map((h) => h.to)).toEqual(['pending_deposit', 'in_custody', 'pending_release', 'released']);
  });

  it('cancel from pending_deposit', async () => {
    const p = await create();
    const res = await act(p.id, 'cancel', { reason: 'buyer changed mind' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
  });

  it('dispute then resolve either way', async () => {
    for (const [resolution, status] of [
      ['release', 'released'],
      ['refund', 'refunded'],
    ]) {
      const id = await paymentIn('disputed');
      const missing = await act(id, 'resolve', {});
      expect(missing.status).toBe(400);
      expect(missing.body.error.details[0].field).toBe('resolution');
      const res = await act(id, 'resolve', { resolution });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
  });

  it('refund from each allowed status', async () => {
    for (const from of ['in_custody', 'pending_release', 'disputed'] as const) {
      const id = await paymentIn(from);
      const res = await act(id, 'refund');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('refunded');
    }
  });

  it('an action the table allows answers 200 with the new status; one it refuses, 409 naming the status and the next steps', async () => {
    // Every action from every status is proved against the table in test/unit/transitions.test.ts
    // ("checkTransition: every action from every status", 126 pairs, and "allowedActions"); here one
    // HTTP sample of each answer class: allowed, refused from an open status, refused from a final one.
    const disputed = await paymentIn('disputed');
    const resolved = await act(disputed, 'resolve', { resolution: 'refund' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe('refunded');

    const cases: { status: PaymentStatus; action: ClientAction; allowed: ClientAction[] }[] = [
      // The state machine of docs/api.md ("State machine"), written out here, not the module the service runs on.
      { status: 'in_custody', action: 'release', allowed: ['approve', 'refund', 'dispute'] },
      { status: 'released', action: 'refund', allowed: [] },
    ];
    for (const { status, action, allowed } of cases) {
      const res = await act(await paymentIn(status), action);
      expect(res.status, `${action} from ${status}`).toBe(409);
      expect(res.body.error.code).toBe('invalid_transition');
      expect(res.body.error.message).toContain(status);
      expect(res.body.error.details).toEqual({ status, allowed_actions: allowed });
    }
  });

  it('release and refund at the same moment: exactly one wins, and every view agrees', async () => {
    for (let i = 0; i < 3; i++) {
      const id = await paymentIn('pending_release');
      const [release, refund] = await Promise.all([act(id, 'release'), act(id, 'refund')]);
      expect([release.status, refund.status].sort()).toEqual([200, 409]);
      const winner = release.status === 200 ? 'released' : 'refunded';
      const loser = release.status === 200 ? refund : release;
      expect(loser.body.error.code).toBe('invalid_transition');
      const queried = await stack.client.workflow.getHandle(id).query(getPaymentQuery);
      expect(queried.status).toBe(winner);
      const row = await stack.db('payments').where({ id }).first();
      expect(row.status).toBe(winner);
      const events = await stack.http.get(`/api/v1/payments/${id}/events`, { key: acct.test_api_key });
      expect(events.body.data.map((e: any) => e.to)).toEqual(['pending_deposit', 'in_custody', 'pending_release', winner]);
    }
  });

  it('a 2-second deposit deadline cancels the payment by itself', async () => {
    const p = await create({ deposit_deadline_seconds: 2 });
    const cancelled = await eventually(
      async () => {
        const res = await stack.http.get(`/api/v1/payments/${p.id}`, { key: acct.test_api_key });
        return res.body.status === 'cancelled' ? res.body : undefined;
      },
      20_000,
      'deadline cancellation',
    );
    expect(cancelled.status).toBe('cancelled');
    const events = await stack.http.get(`/api/v1/payments/${p.id}/events`, { key: acct.test_api_key });
    expect(events.body.data.at(-1)).toMatchObject({ action: 'deadline', from: 'pending_deposit', to: 'cancelled', actor: 'system' });
    expect((await act(p.id, 'deposit')).status).toBe(409);
  });

  it('a deposit that reaches the workflow after its deadline was due loses to the deadline', async () => {
    // Its own stack, so that its worker can be down while the deadline passes.
    const own = await startStack();
    try {
      const who = await own.newAccount();
      const p = await own.http.post('/api/v1/payments', { key: who.test_api_key, body: validPayment({ deposit_deadline_seconds: 1 }) });
      expect(p.status).toBe(201);
      await own.stopWorker();
      await new Promise((r) => setTimeout(r, 1500)); // past the deadline, with no worker to fire it
      const handle = own.client.workflow.getHandle(p.body.id);
      // The deposit and the due timer reach the next worker in the same workflow task.
      const deposit = handle.executeUpdate(actionUpdate('deposit'), { args: [{ actor: 'test' }] });
      deposit.catch(() => undefined); // refused while the next worker starts: handled below
      const next = await startStack({ TEMPORAL_TASK_QUEUE: own.taskQueue });
      try {
        // Usually both reach one task and the deadline is checked first; on a busy machine the timer's
        // task may come first, and the deposit then meets a cancelled payment. Either way it loses.
        await expect(deposit).rejects.toMatchObject({
          cause: { message: expect.stringMatching(/deposit deadline has passed|status is cancelled/) },
        });
        const final = await handle.result();
        expect(final.status).toBe('cancelled');
        expect((await handle.query(getHistoryQuery)).map((h) => h.action)).toEqual(['create', 'deadline']);
      } finally {
        await next.stop();
      }
    } finally {
      await own.stop();
    }
  });

  it('auto-release fires only when asked for at create', async () => {
    const auto = await create({ auto_release_after_seconds: 1 });
    const manual = await create();
    for (const id of [auto.id, manual.id]) {
      await act(id, 'deposit');
      await act(id, 'approve');
    }
    await eventually(
      async () => {
        const res = await stack.http.get(`/api/v1/payments/${auto.id}`, { key: acct.test_api_key });
        return res.body.status === 'released' ? true : undefined;
      },
      20_000,
      'auto-release',
    );
    const events = await stack.http.get(`/api/v1/payments/${auto.id}/events`, { key: acct.test_api_key });
    expect(events.body.data.at(-1)).toMatchObject({ action: 'auto_release', to: 'released', event: 'payment.released' });
    const still = await stack.http.get(`/api/v1/payments/${manual.id}`, { key: acct.test_api_key });
    expect(still.body.status).toBe('pending_release');
  });

  it('the workflow takes the same transitions as signals', async () => {
    const p = await create();
    const handle = stack.client.workflow.getHandle(p.id);
    await handle.signal(transitionSignal, { action: 'approve', actor: 'test' }); // illegal: ignored
    await handle.signal(transitionSignal, { action: 'deposit', actor: 'test', reason: 'by signal' });
    const state = await eventually(async () => {
      const s = await handle.query(getPaymentQuery);
      return s.status === 'in_custody' ? s : undefined;
    });
    expect(state.version).toBe(2);
    // A signal's free-text reason is not carried on (only the API's keyed hash is): not in the workflow's state, not in the read model.
    expect((await handle.query(getHistoryQuery)).at(-1)).toMatchObject({ action: 'deposit', reason: null });
    const history = await eventually(async () => {
      const res = await stack.http.get(`/api/v1/payments/${p.id}/history`, { key: acct.test_api_key });
      return res.body.data?.length === 2 ? res.body.data : undefined;
    });
    expect(history[1]).toMatchObject({ action: 'deposit', reason: null });
  });

  it('keeps the search attributes current for the Temporal UI', async () => {
    const id = await paymentIn('in_custody');
    const desc = await stack.client.workflow.getHandle(id).describe();
    const sa = desc.searchAttributes as Record<string, unknown[]>;
    expect(sa.PaymentStatus).toEqual(['in_custody']);
    expect(sa.PaymentAmount).toEqual([125.5]);
    expect(sa.PaymentCurrency).toEqual(['USD']);
    expect(sa.AccountId).toEqual([acct.account_id]);
    expect(sa.Livemode).toEqual([false]);
    const found = await eventually(
      async () => {
        for await (const wf of stack.client.workflow.list({ query: `PaymentStatus="in_custody" AND AccountId="${acct.account_id}"` })) {
          if (wf.workflowId === id) return true;
        }
        return undefined;
      },
      20_000,
      'visibility',
    );
    expect(found).toBe(true);
  });
});

describe('listing', () => {
  it('newest first, cursor pagination and filters', async () => {
    const own = await stack.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await stack.http.post('/api/v1/payments', { key: own.test_api_key, body: validPayment({ amount: i + 1 }) });
      ids.push(res.body.id);
    }
    await stack.http.post(`/api/v1/payments/${ids[1]}/cancel`, { key: own.test_api_key });
    const page1 = await stack.http.get('/api/v1/payments?limit=2', { key: own.test_api_key });
    expect(page1.body.object).toBe('list');
    expect(page1.body.data.map((p: any) => p.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await stack.http.get(`/api/v1/payments?limit=2&starting_after=${ids[3]}`, { key: own.test_api_key });
    expect(page2.body.data.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
    const page3 = await stack.http.get(`/api/v1/payments?limit=2&starting_after=${ids[1]}`, { key: own.test_api_key });
    expect(page3.body.data.map((p: any) => p.id)).toEqual([ids[0]]);
    expect(page3.body.has_more).toBe(false);
    const cancelled = await stack.http.get('/api/v1/payments?status=cancelled', { key: own.test_api_key });
    expect(cancelled.body.data.map((p: any) => p.id)).toEqual([ids[1]]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const none = await stack.http.get(`/api/v1/payments?created_gte=${encodeURIComponent(future)}`, { key: own.test_api_key });
    expect(none.body.data).toEqual([]);
    const all = await stack.http.get(`/api/v1/payments?created_lte=${encodeURIComponent(future)}`, { key: own.test_api_key });
    expect(all.body.data).toHaveLength(5);
    const bad = await stack.http.get('/api/v1/payments?limit=0', { key: own.test_api_key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('limit');
  });
});
