/**
 * The workers are the custody trail's only writers (docs/audit.md, "Who writes the trail"): the
 * workflow's publication appends each transition's and each ledger entry's leaf once, however often
 * it runs. That an action answers only once they are written: test/read-your-writes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { unaccountedLeaves } from '../src/audit/trailSources.repository';
import { projectAndPlan, projectPayment } from '../src/payments/projection.repository';
import { transitionEnvelopes } from '../src/webhooks/webhookEnvelope.view';
import { useAccount, useStack } from './helpers/stack';
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

  it('the publication writes the read model, the ledger and both leaves; a retried publication writes none of them twice', async () => {
    const { state, entry } = sampleDeposit(acct.account_id);
    await projectAndPlan(stack.db, state, entry, transitionEnvelopes(state, entry), REASON_KEY);
    await projectAndPlan(stack.db, state, entry, transitionEnvelopes(state, entry), REASON_KEY); // a retried publication
    const entryId = (await stack.db('ledger_entries').where({ payment_id: state.id }).first()).id as string;
    expect((await leavesOf(state.id)).sort()).toEqual([`ledger:${entryId}`, `transition:${state.id}:2`].sort());
    expect(await count('ledger_entries', { payment_id: state.id })).toBe(1);
    expect((await unaccountedLeaves(stack.db)).filter((l) => l.reason.includes(state.id) || l.reason.includes(entryId))).toEqual([]);
  });

  it('a publication and its retries at the same moment, 30 times: every transition and every ledger entry has exactly one leaf, and none fails', async () => {
    const failures: unknown[] = [];
    const ids: string[] = [];
    for (let round = 0; round < 30; round++) {
      const { state, entry } = sampleDeposit(acct.account_id);
      ids.push(state.id);
      // An attempt that timed out may still be running when its retry starts (docs/architecture.md).
      const results = await Promise.allSettled([
        projectPayment(stack.db, state, entry, REASON_KEY),
        projectPayment(stack.db, state, entry, REASON_KEY),
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
});
