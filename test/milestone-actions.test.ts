/**
 * A milestone's actions on the real stack (docs/concepts.md, "Deals paid in stages"): 404 for a
 * milestone the payment does not have, 409 naming the milestone's status, the payment's actions on
 * every milestone they may act on, and actions on milestones at the same instant, the ledger agreeing.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { actionUpdate, getPaymentQuery, milestoneUpdate, transitionSignal } from '../src/platform/workflows.workflow';
import { amountsOf, expectConsistent, expectLedgerOf, paymentsOf, twoMilestones, workedExample } from './helpers/milestones';
import { useAccount, useStack } from './helpers/stack';

const stack = useStack();
const acct = useAccount(stack);
const verify = (accountId: string) => stack.services.ledger.verify(accountId);

describe("a milestone's actions refused, and the payment's actions on several milestones", () => {
  const api = () => paymentsOf(stack, acct.test_api_key);
  /** The worked example deposited and its design milestone released: build and launch still in custody. */
  const designReleased = async () => {
    const a = api();
    const p = await a.create(workedExample());
    const ids = a.ids(p);
    await a.ok(p.id, 'deposit');
    await a.okOn(p.id, ids.design, 'approve');
    await a.okOn(p.id, ids.design, 'release');
    return { a, p, build: ids.build, launch: ids.launch };
  };

  it("404 for a milestone the payment does not have, another payment's, or a malformed id; the payment unchanged", async () => {
    const a = api();
    const p = await a.create(twoMilestones());
    const other = await a.create(twoMilestones());
    await a.ok(p.id, 'deposit');
    const before = await a.get(`/payments/${p.id}`);
    const unknown = 'ms_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    for (const ms of [unknown, other.milestones[0].id, 'ms_bad', 'first', p.id, 'ms_01ARZ3NDEKTSV4RRFFQ69G5FA!']) {
      for (const action of ['approve', 'refund', 'dispute']) {
        const res = await a.actOn(p.id, encodeURIComponent(ms), action);
        expect([res.status, res.body.error?.code], `${action} ${ms}`).toEqual([404, 'not_found']);
      }
    }
    expect(await a.get(`/payments/${p.id}`)).toEqual(before);
    expect((await a.get(`/payments/${p.id}/history`)).data).toHaveLength(2);
  });

  it("409 naming the milestone's status, the payment unchanged", async () => {
    const a = api();
    const p = await a.create(twoMilestones());
    const { first, second } = a.ids(p);
    /** The milestone's actions its status allows (a payment's deposit or cancel never), and the message's account of them. */
    const NEXT: Record<string, [string[], string]> = {
      pending_deposit: [[], 'no milestone action is allowed from pending_deposit'],
      in_custody: [['approve', 'refund', 'dispute'], 'allowed from in_custody: approve, refund, dispute'],
      pending_release: [['release', 'refund', 'dispute'], 'allowed from pending_release: release, refund, dispute'],
      released: [[], 'released is final'],
    };
    const refused = async (ms: string, action: string, status: string, body?: unknown) => {
      const before = await a.get(`/payments/${p.id}`);
      const res = await a.actOn(p.id, ms, action, body);
      expect([res.status, res.body.error?.code], `${action} of a ${status} milestone`).toEqual([409, 'invalid_transition']);
      const [allowed, next] = NEXT[status];
      expect(res.body.error.message).toBe(`cannot ${action} a milestone whose status is ${status} (${next})`);
      expect(res.body.error.details).toEqual({ status, allowed_actions: allowed, milestone_id: ms });
      expect(await a.get(`/payments/${p.id}`)).toEqual(before);
    };
    // Before the deposit: nothing to approve or release.
    await refused(first, 'approve', 'pending_deposit');
    await refused(first, 'refund', 'pending_deposit');
    await a.ok(p.id, 'deposit');
    await refused(first, 'release', 'in_custody');
    await refused(first, 'resolve', 'in_custody', { resolution: 'release' });
    await a.okOn(p.id, first, 'approve');
    await refused(first, 'approve', 'pending_release');
    await a.okOn(p.id, first, 'release');
    // A released milestone is final (the service refuses it before asking the workflow), though its payment is not.
    for (const action of ['approve', 'release', 'refund', 'dispute']) await refused(first, action, 'released');
    await refused(first, 'refund', 'released', { amount: 1 });
    await refused(first, 'resolve', 'released', { resolution: 'refund' });
    // The other milestone is untouched by all this.
    const after = await a.okOn(p.id, second, 'refund');
    expect(amountsOf(after)).toMatchObject({
      status: 'released',
      milestones: { first: ['released', 0, 60, 0, 6], second: ['refunded', 0, 0, 40, 0] },
    });
    expect(await a.get(`/payments/${p.id}/history`).then((h) => h.data.length)).toBe(5);
  });

  it('a partial refund or a split of the payment while two milestones hold money is a 409; with one, it acts on that one', async () => {
    const a = api();
    const p = await a.create(twoMilestones());
    const { first } = a.ids(p);
    await a.ok(p.id, 'deposit');
    const before = await a.get(`/payments/${p.id}`);
    const partial = await a.act(p.id, 'refund', { amount: 10 });
    expect([partial.status, partial.body.error.code]).toEqual([409, 'invalid_transition']);
    expect(partial.body.error.message).toBe(
      `cannot refund a payment whose status is in_custody with a partial refund while 2 milestones hold money: name the milestone (POST /api/v1/payments/${p.id}/milestones/{milestone}/refund) (allowed from in_custody: approve, dispute)`,
    );
    // The refund it refuses is each milestone's, not the payment's: not among its next steps.
    expect(partial.body.error.details).toEqual({ status: 'in_custody', allowed_actions: ['approve', 'dispute'] });
    await a.ok(p.id, 'dispute');
    const split = await a.act(p.id, 'resolve', { resolution: 'split', refund_amount: 10 });
    expect([split.status, split.body.error.code]).toEqual([409, 'invalid_transition']);
    expect(split.body.error.message).toMatch(/split while 2 milestones hold money/);
    expect(split.body.error.details).toEqual({ status: 'disputed', allowed_actions: ['refund'] });
    expect((await a.get(`/payments/${p.id}`)).amount_refunded).toBe(before.amount_refunded);
    // One milestone resolved: the other alone holds money, and the payment's partial refund is its.
    await a.okOn(p.id, first, 'resolve', { resolution: 'release' });
    const refunded = await a.ok(p.id, 'refund', { amount: 15 });
    expect(amountsOf(refunded).milestones).toEqual({ first: ['released', 0, 60, 0, 6], second: ['disputed', 25, 0, 15, 0] });
    const resolved = await a.ok(p.id, 'resolve', { resolution: 'split', refund_amount: 5 });
    expect(amountsOf(resolved)).toEqual({
      status: 'released',
      held: 0,
      released: 80,
      refunded: 20,
      fee: 8,
      milestones: { first: ['released', 0, 60, 0, 6], second: ['released', 0, 20, 20, 2] },
    });
    await expectLedgerOf(stack, a.key, resolved);
  });

  it("the payment's approve approves every in_custody milestone, its release releases every pending_release one", async () => {
    const { a, p, build, launch } = await designReleased();
    const approved = await a.ok(p.id, 'approve');
    expect(amountsOf(approved)).toMatchObject({
      status: 'pending_release',
      milestones: {
        design: ['released', 0, 200, 0, 5.99],
        build: ['pending_release', 500, 0, 0, 0],
        launch: ['pending_release', 300, 0, 0, 0],
      },
    });
    const events = async (seq: number) =>
      (await a.get(`/events?payment_id=${p.id}&limit=100`)).data
        .filter((e: any) => e.sequence === seq)
        .reverse()
        .map((e: any) => e.type);
    expect(await events(5)).toEqual(['payment.milestone_approved', 'payment.milestone_approved', 'payment.approved']);
    const history = (await a.get(`/payments/${p.id}/history`)).data.at(-1);
    expect(history).toMatchObject({ action: 'approve', from: 'in_custody', to: 'pending_release', milestone_id: null });
    const released = await a.ok(p.id, 'release');
    expect(amountsOf(released)).toEqual({
      status: 'released',
      held: 0,
      released: 1000,
      refunded: 0,
      fee: 29.99,
      milestones: { design: ['released', 0, 200, 0, 5.99], build: ['released', 0, 500, 0, 15], launch: ['released', 0, 300, 0, 9] },
    });
    const entries = await expectLedgerOf(stack, a.key, released);
    expect(
      entries
        .filter((e) => e.version === 6)
        .map((e) => e.milestone_id)
        .sort(),
    ).toEqual([build, launch].sort());
  });

  it("the payment's release releases each pending_release milestone while another keeps it in custody; with none, a 409 naming in_custody", async () => {
    const a = api();
    const p = await a.create(twoMilestones());
    await a.ok(p.id, 'deposit');
    const none = await a.act(p.id, 'release');
    expect([none.status, none.body.error.code, none.body.error.details]).toEqual([
      409,
      'invalid_transition',
      { status: 'in_custody', allowed_actions: ['approve', 'refund', 'dispute'] },
    ]);
    await a.okOn(p.id, a.ids(p).first, 'approve');
    // The next steps are those some milestone may take: the payment in custody may now release.
    const deposit = await a.act(p.id, 'deposit');
    expect([deposit.status, deposit.body.error.details]).toEqual([
      409,
      { status: 'in_custody', allowed_actions: ['approve', 'release', 'refund', 'dispute'] },
    ]);
    const released = await a.ok(p.id, 'release');
    expect(amountsOf(released)).toMatchObject({
      status: 'in_custody',
      milestones: { first: ['released', 0, 60, 0, 6], second: ['in_custody', 40, 0, 0, 0] },
    });
    const history = (await a.get(`/payments/${p.id}/history`)).data.at(-1);
    expect(history).toMatchObject({ action: 'release', from: 'in_custody', to: 'in_custody', milestone_id: null });
    await expectLedgerOf(stack, a.key, released);
  });

  it("the payment's approve and dispute act on the milestones holding money in custody while another is disputed", async () => {
    const a = api();
    const p = await a.create(workedExample());
    const { design } = a.ids(p);
    await a.ok(p.id, 'deposit');
    await a.okOn(p.id, design, 'dispute');
    const approved = await a.ok(p.id, 'approve');
    expect(amountsOf(approved)).toMatchObject({
      status: 'disputed',
      milestones: {
        design: ['disputed', 200, 0, 0, 0],
        build: ['pending_release', 500, 0, 0, 0],
        launch: ['pending_release', 300, 0, 0, 0],
      },
    });
    const disputed = await a.ok(p.id, 'dispute');
    expect(amountsOf(disputed).milestones).toEqual({
      design: ['disputed', 200, 0, 0, 0],
      build: ['disputed', 500, 0, 0, 0],
      launch: ['disputed', 300, 0, 0, 0],
    });
    // Every milestone disputed: nothing left to approve, and the next steps are those a disputed milestone allows.
    const refused = await a.act(p.id, 'approve');
    expect([refused.status, refused.body.error.message, refused.body.error.details]).toEqual([
      409,
      'cannot approve a payment whose status is disputed (allowed from disputed: refund, resolve)',
      { status: 'disputed', allowed_actions: ['refund', 'resolve'] },
    ]);
  });

  it("the payment's refund without an amount refunds everything held, a released milestone kept", async () => {
    const { a, p, build } = await designReleased();
    await a.okOn(p.id, build, 'approve');
    const refunded = await a.ok(p.id, 'refund');
    expect(amountsOf(refunded)).toEqual({
      status: 'released',
      held: 0,
      released: 200,
      refunded: 800,
      fee: 5.99,
      milestones: { design: ['released', 0, 200, 0, 5.99], build: ['refunded', 0, 0, 500, 0], launch: ['refunded', 0, 0, 300, 0] },
    });
    const entries = await expectLedgerOf(stack, a.key, refunded);
    expect(entries.filter((e) => e.type === 'refund')).toHaveLength(2);
    // Nothing held any more, and something released: the payment is released, the refund told as a partial one.
    const last = (await a.get(`/events?payment_id=${p.id}&limit=2`)).data.map((e: any) => e.type);
    expect(last).toEqual(['payment.released', 'payment.partially_refunded']);
  });
});

describe('the workflow, asked directly (any Temporal client)', () => {
  const api = () => paymentsOf(stack, acct.test_api_key);
  /** The failure an update was refused with: its type and message. */
  const refusedWith = (err: unknown) => {
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (err as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return [(cause as ApplicationFailure).type, (cause as ApplicationFailure).message];
  };

  it('refuses a milestone named by a payment-only action, and a milestone update naming none; the payment unchanged', async () => {
    const a = api();
    const p = await a.create(twoMilestones());
    const { first } = a.ids(p);
    const handle = stack.client.workflow.getHandle(p.id);
    const before = await handle.query(getPaymentQuery);
    const deposit = await handle
      .executeUpdate(actionUpdate('deposit'), { args: [{ actor: 'test', milestoneId: first }] })
      .catch((err: unknown) => err);
    expect(refusedWith(deposit)).toEqual(['InvalidArgument', "deposit is the payment's action: it names no milestone"]);
    // Signals are fire-and-forget: the refused ones are handled before the update sent after them.
    await handle.signal(transitionSignal, { action: 'cancel', actor: 'test', milestoneId: first });
    await handle.signal(transitionSignal, { action: 'deposit', actor: 'test', milestoneId: first });
    await a.ok(p.id, 'deposit');
    const deposited = await handle.query(getPaymentQuery);
    expect(deposited.version).toBe(before.version + 1);
    expect(deposited.milestones.map((m) => [m.status, m.heldMinor])).toEqual([
      ['in_custody', 6000n],
      ['in_custody', 4000n],
    ]);
    const approve = await handle
      .executeUpdate(milestoneUpdate('approve'), { args: [{ actor: 'test' } as never] })
      .catch((err: unknown) => err);
    expect(refusedWith(approve)).toEqual(['InvalidArgument', 'milestone_approve names its milestone: milestoneId is required']);
    const payments = await handle
      .executeUpdate(actionUpdate('approve'), { args: [{ actor: 'test', milestoneId: first }] })
      .catch((err: unknown) => err);
    expect(refusedWith(payments)).toEqual(['InvalidArgument', "approve names no milestone: a milestone's is milestone_approve"]);
    expect(await handle.query(getPaymentQuery)).toEqual(deposited);
  });
});

describe('milestone actions at the same instant', () => {
  const api = () => paymentsOf(stack, acct.test_api_key);

  it('two milestones released at once: both 200, each moved once', async () => {
    const a = api();
    for (let i = 0; i < 3; i++) {
      const p = await a.create(twoMilestones());
      const { first, second } = a.ids(p);
      await a.ok(p.id, 'deposit');
      await a.ok(p.id, 'approve');
      const answers = await Promise.all([a.actOn(p.id, first, 'release'), a.actOn(p.id, second, 'release')]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      const final = await a.get(`/payments/${p.id}`);
      expect(amountsOf(final)).toEqual({
        status: 'released',
        held: 0,
        released: 100,
        refunded: 0,
        fee: 10,
        milestones: { first: ['released', 0, 60, 0, 6], second: ['released', 0, 40, 0, 4] },
      });
      const entries = await expectLedgerOf(stack, a.key, final);
      expect(entries.map((e) => e.type).sort()).toEqual(['deposit', 'deposit', 'release', 'release']);
      expect((await a.get(`/payments/${p.id}/history`)).data.map((h: any) => h.action)).toEqual([
        'create',
        'deposit',
        'approve',
        'release',
        'release',
      ]);
    }
  });

  it('one milestone released twice at once: one 200, one 409 naming released, moved once', async () => {
    const a = api();
    for (let i = 0; i < 3; i++) {
      const p = await a.create(twoMilestones());
      const { first } = a.ids(p);
      await a.ok(p.id, 'deposit');
      await a.okOn(p.id, first, 'approve');
      const answers = await Promise.all([a.actOn(p.id, first, 'release'), a.actOn(p.id, first, 'release')]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const loser = answers.find((r) => r.status === 409)!;
      expect(loser.body.error.message).toContain('cannot release a milestone whose status is released');
      const final = await a.get(`/payments/${p.id}`);
      expect(amountsOf(final).milestones).toEqual({ first: ['released', 0, 60, 0, 6], second: ['in_custody', 40, 0, 0, 0] });
      const entries = await expectLedgerOf(stack, a.key, final);
      expect(entries.filter((e) => e.type === 'release')).toHaveLength(1);
    }
  });

  it("the payment's refund and a milestone's release at once: whichever wins, every amount and the ledger agree", async () => {
    const a = api();
    for (let i = 0; i < 4; i++) {
      const p = await a.create(twoMilestones());
      const { first } = a.ids(p);
      await a.ok(p.id, 'deposit');
      await a.okOn(p.id, first, 'approve');
      const [refund, release] = await Promise.all([a.act(p.id, 'refund'), a.actOn(p.id, first, 'release')]);
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
      const final = await a.get(`/payments/${p.id}`);
      expectConsistent(final);
      await expectLedgerOf(stack, a.key, final);
      expect(final.amount_held).toBe(0);
      if (release.status === 200) {
        // The release came first: the refund took what was left.
        expect(amountsOf(final).milestones).toEqual({ first: ['released', 0, 60, 0, 6], second: ['refunded', 0, 0, 40, 0] });
      } else {
        expect([release.status, release.body.error.details.status]).toEqual([409, 'refunded']);
        expect(amountsOf(final).milestones).toEqual({ first: ['refunded', 0, 0, 60, 0], second: ['refunded', 0, 0, 40, 0] });
      }
    }
  });

  it('ledger:verify passes for the account after all of the above', async () => {
    expect(await verify(acct.account_id)).toEqual([]);
  });
});
