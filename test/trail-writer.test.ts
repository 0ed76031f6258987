/**
 * The workers are the custody trail's only writers (docs/audit.md, "Who writes the trail"): the API's
 * write-through shows a transition at once but appends no leaf, and the workflow's projection appends
 * each transition's and each ledger entry's leaf once, whichever of the two wrote the read model first.
 */
import { describe, expect, it } from 'vitest';
import { unaccountedLeaves } from '../src/audit/trailSources.repository';
import { projectAndPlan, projectPayment } from '../src/payments/projection.repository';
import type { HistoryEntry } from '../src/payments/paymentTypes.rules';
import type { PaymentDetails } from '../src/payments/paymentRecord.rules';
import { createLogger } from '../src/platform/lib/logger';
import { paymentRun } from '../src/payments/paymentRun.service';
import { transitionEnvelopes } from '../src/webhooks/webhookEnvelope.view';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';
import { sampleDeposit } from './helpers/webhooks';

/** The reason key of these projections (the service derives its own from WEBHOOK_SECRET_KEY). */
const REASON_KEY = Buffer.alloc(32, 7);

describe('the custody trail’s only writers are the workers', () => {
  const stack = useStack();
  const acct = useAccount(stack);
  const leavesOf = async (paymentId: string) =>
    (await stack.db('audit_leaves').where({ payment_id: paymentId }).orderBy('id').select('entry_key')).map(
      (r: { entry_key: string }) => r.entry_key,
    );
  const count = async (table: string, where: Record<string, unknown>) =>
    Number((await stack.db(table).where(where).count({ n: '*' }).first())!.n);
  /** The API's write-through, as every route that changes a payment calls it. */
  const writeThrough = (state: PaymentDetails, entry: HistoryEntry) =>
    paymentRun({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') }).showDurable(
      { principal: { accountId: state.accountId, livemode: state.livemode, actor: 'test', credential: 'test' }, requestId: 'req_test' },
      state,
      entry,
    );

  it('a payment created while every worker is down is listed at once, with no leaf; the workflow appends its leaf once a worker runs', async () => {
    const key = acct.test_api_key;
    await stack.stopWorker();
    let id = '';
    try {
      const created = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      id = created.body.id as string;
      expect((await stack.http.get(`/api/v1/payments/${id}`, { key })).body.status).toBe('pending_deposit');
      expect(await count('payment_events', { payment_id: id })).toBe(1);
      expect(await leavesOf(id)).toEqual([]);
    } finally {
      await stack.startWorker();
    }
    await eventually(async () => ((await leavesOf(id)).length > 0 ? true : undefined), 30_000, 'the creation’s leaf');
    expect(await leavesOf(id)).toEqual([`transition:${id}:1`]);
  });

  it('the API’s write-through writes the read model and the ledger but no leaf; the workflow’s projection then appends both leaves', async () => {
    const { state, entry } = sampleDeposit(acct.account_id);
    await writeThrough(state, entry);
    expect((await stack.db('payments').where({ id: state.id }).first()).version).toBe(2);
    expect(await count('ledger_entries', { payment_id: state.id })).toBe(1);
    expect(await leavesOf(state.id)).toEqual([]);

    await projectAndPlan(stack.db, state, entry, transitionEnvelopes(state, entry), REASON_KEY);
    await projectAndPlan(stack.db, state, entry, transitionEnvelopes(state, entry), REASON_KEY); // a retried publication
    const entryId = (await stack.db('ledger_entries').where({ payment_id: state.id }).first()).id as string;
    expect((await leavesOf(state.id)).sort()).toEqual([`ledger:${entryId}`, `transition:${state.id}:2`].sort());
    expect(await count('ledger_entries', { payment_id: state.id })).toBe(1);
    expect((await unaccountedLeaves(stack.db)).filter((l) => l.reason.includes(state.id) || l.reason.includes(entryId))).toEqual([]);
  });

  it('both writers at the same moment, 30 times: every transition and every ledger entry has exactly one leaf, and no writer fails', async () => {
    const failures: unknown[] = [];
    const ids: string[] = [];
    for (let round = 0; round < 30; round++) {
      const { state, entry } = sampleDeposit(acct.account_id);
      ids.push(state.id);
      const results = await Promise.allSettled([
        writeThrough(state, entry),
        projectPayment(stack.db, state, entry, REASON_KEY),
        writeThrough(state, entry),
        projectAndPlan(stack.db, state, entry, transitionEnvelopes(state, entry), REASON_KEY),
      ]);
      failures.push(...results.filter((r) => r.status === 'rejected').map((r) => r.reason));
    }
    expect(failures.map((e) => String(e).slice(-160))).toEqual([]);
    for (const id of ids) {
      const keys = await leavesOf(id);
      expect(
        keys.filter((k) => k.startsWith('transition:')),
        id,
      ).toEqual([`transition:${id}:2`]);
      expect(
        keys.filter((k) => k.startsWith('ledger:')),
        id,
      ).toHaveLength(1);
    }
  });

  it('when the API wrote an entry whose postings differ from the workflow’s (a recipient verified in between), the leaf holds the stored postings', async () => {
    // The workflow computes other postings for the same entry than the API wrote: here, another amount.
    const api = sampleDeposit(acct.account_id, 1000n);
    const worker = {
      state: api.state,
      entry: { ...api.entry, movement: { deposited: 900n, refunded: 0n, released: 0n, fee: 0n } },
    };
    await writeThrough(api.state, api.entry);
    await projectPayment(stack.db, worker.state, worker.entry, REASON_KEY);
    const entryId = (await stack.db('ledger_entries').where({ payment_id: api.state.id }).first()).id as string;
    const leaf = (
      await stack
        .db('audit_leaves')
        .where({ entry_key: `ledger:${entryId}` })
        .first()
    )?.leaf as string | undefined;
    expect(leaf && (JSON.parse(leaf) as { postings: { amount_minor: number }[] }).postings.map((p) => p.amount_minor).sort()).toEqual([
      -1000, 1000,
    ]);
    expect((await unaccountedLeaves(stack.db)).filter((l) => l.reason.includes(entryId))).toEqual([]);
  });
});
