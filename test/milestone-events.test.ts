/**
 * What milestones tell the outside (docs/webhooks.md): a subscriber to the spec's events only hears
 * of the payment's status, a subscriber to the milestone events of each milestone's movement, and a
 * payment created without milestones emits none; each milestone's auto-release on a test clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { amountsOf, expectLedgerOf, paymentsOf, twoMilestones, workedExample } from './helpers/milestones';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';
import { FAST_WEBHOOK_RETRIES, configureWebhook, deliveryLog } from './helpers/webhooks';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });
const acct = useAccount(stack);

const SPEC_EVENTS = [
  'payment.created',
  'payment.deposited',
  'payment.approved',
  'payment.released',
  'payment.refunded',
  'payment.partially_refunded',
  'payment.disputed',
  'payment.cancelled',
];
const MILESTONE_EVENTS = ['payment.milestone_approved', 'payment.milestone_released', 'payment.milestone_disputed'];

describe('spec-only and milestone subscribers', () => {
  /** Runs `steps` on a new payment; answers what each receiver got for it, once the Events API shows its last step. */
  async function scenario(body: Record<string, unknown>, steps: (id: string, ms: Record<string, string>) => Promise<unknown>) {
    const api = paymentsOf(stack, acct.test_api_key);
    const p = await api.create(body);
    await steps(p.id, api.ids(p));
    const history = (await api.get(`/payments/${p.id}/history`)).data as any[];
    const last = history.at(-1).seq;
    const events = (await api.get(`/events?payment_id=${p.id}&limit=100`)).data.reverse() as any[];
    expect(events.at(-1).sequence).toBe(last);
    const got = (receiver: Awaited<ReturnType<typeof startReceiver>>, n: number) =>
      eventually(
        async () => {
          // Deliveries may arrive out of order (a retry can overtake the next event: docs/webhooks.md), so a
          // receiver orders them by sequence; within one step they are sent in order, which a stable sort keeps.
          const mine = receiver.received.filter((r) => r.body.payment_id === p.id);
          return mine.length >= n ? mine.map((r) => r.body).sort((a, b) => a.sequence - b.sequence) : undefined;
        },
        20_000,
        `${n} deliveries`,
      );
    const specCount = events.filter((e) => SPEC_EVENTS.includes(e.type)).length;
    const msCount = events.filter((e) => MILESTONE_EVENTS.includes(e.type)).length;
    return { p, history, events, spec: await got(spec, specCount), ms: await got(milestones, msCount), specCount, msCount };
  }

  /**
   * Each step that changes the payment's status emits one spec event besides a partial refund (a
   * return from a dispute to in_custody has none: `noEvent`), and a step that leaves it emits none but one.
   */
  function expectOnePerStatusChange(history: any[], spec: any[], noEvent: string[] = []) {
    for (const h of history.slice(1)) {
      const own = spec.filter((e) => e.sequence === h.seq && e.event !== 'payment.partially_refunded');
      const expected = h.from !== h.to && !noEvent.includes(`${h.from}>${h.to}`) ? 1 : 0;
      expect(
        own.map((e) => e.event),
        `step ${h.seq} ${h.action} ${h.from} → ${h.to}`,
      ).toHaveLength(expected);
      if (expected) expect(own[0].data.status).toBe(h.to);
    }
  }

  let spec: Awaited<ReturnType<typeof startReceiver>>;
  let milestones: Awaited<ReturnType<typeof startReceiver>>;
  let milestonesHook: string;
  beforeAll(async () => {
    spec = await startReceiver();
    milestones = await startReceiver();
    await configureWebhook(stack, acct.test_api_key, spec.url, SPEC_EVENTS);
    milestonesHook = (await configureWebhook(stack, acct.test_api_key, milestones.url, MILESTONE_EVENTS)).id;
  });
  afterAll(async () => {
    await spec?.close();
    await milestones?.close();
  });

  it('the worked example: the spec subscriber hears each status change and the partial refunds; the milestone one each movement', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const got = await scenario(workedExample(), async (id, ms) => {
      await api.ok(id, 'deposit');
      await api.okOn(id, ms.design, 'approve');
      await api.okOn(id, ms.design, 'release');
      await api.okOn(id, ms.build, 'refund', { amount: 50 });
      await api.okOn(id, ms.build, 'approve');
      await api.okOn(id, ms.build, 'release');
      await api.okOn(id, ms.launch, 'dispute');
      await api.okOn(id, ms.launch, 'resolve', { resolution: 'split', refund_amount: 100 });
    });
    expect(got.spec.map((e) => [e.event, e.sequence])).toEqual([
      ['payment.created', 1],
      ['payment.deposited', 2],
      ['payment.partially_refunded', 5],
      ['payment.disputed', 8],
      ['payment.partially_refunded', 9],
      ['payment.released', 9],
    ]);
    expectOnePerStatusChange(got.history, got.spec);
    expect(got.ms.map((e) => [e.event, e.sequence, e.milestone.reference, e.milestone.status])).toEqual([
      ['payment.milestone_approved', 3, 'design', 'pending_release'],
      ['payment.milestone_released', 4, 'design', 'released'],
      ['payment.milestone_approved', 6, 'build', 'pending_release'],
      ['payment.milestone_released', 7, 'build', 'released'],
      ['payment.milestone_disputed', 8, 'launch', 'disputed'],
      ['payment.milestone_released', 9, 'launch', 'released'],
    ]);
    for (const e of got.spec) expect(e.milestone).toBeUndefined();
  });

  it('approving, releasing, disputing and refunding two milestones: one spec event per status change', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const got = await scenario(twoMilestones(), async (id, ms) => {
      await api.ok(id, 'deposit');
      await api.okOn(id, ms.first, 'approve'); // in_custody: the other holds money in custody
      await api.okOn(id, ms.second, 'approve'); // pending_release
      await api.okOn(id, ms.first, 'release'); // still pending_release
      await api.okOn(id, ms.second, 'dispute'); // disputed
      await api.okOn(id, ms.second, 'resolve', { resolution: 'refund' }); // released: nothing held, something released
    });
    expect(got.spec.map((e) => [e.event, e.sequence, e.data.status])).toEqual([
      ['payment.created', 1, 'pending_deposit'],
      ['payment.deposited', 2, 'in_custody'],
      ['payment.approved', 4, 'pending_release'],
      ['payment.disputed', 6, 'disputed'],
      ['payment.partially_refunded', 7, 'released'],
      ['payment.released', 7, 'released'],
    ]);
    expectOnePerStatusChange(got.history, got.spec);
    expect(got.ms.map((e) => [e.event, e.sequence, e.milestone.reference])).toEqual([
      ['payment.milestone_approved', 3, 'first'],
      ['payment.milestone_approved', 4, 'second'],
      ['payment.milestone_released', 5, 'first'],
      ['payment.milestone_disputed', 6, 'second'],
    ]);
  });

  it('refunding every milestone: partially_refunded, then refunded; cancelling: cancelled; nothing for the milestone subscriber', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const refunded = await scenario(twoMilestones(), async (id, ms) => {
      await api.ok(id, 'deposit');
      await api.okOn(id, ms.first, 'refund');
      await api.okOn(id, ms.second, 'refund', { amount: 10 });
      await api.okOn(id, ms.second, 'refund');
    });
    expect(refunded.spec.map((e) => [e.event, e.sequence])).toEqual([
      ['payment.created', 1],
      ['payment.deposited', 2],
      ['payment.partially_refunded', 3],
      ['payment.partially_refunded', 4],
      ['payment.refunded', 5],
    ]);
    expectOnePerStatusChange(refunded.history, refunded.spec);
    expect(refunded.msCount).toBe(0);
    const cancelled = await scenario(twoMilestones(), (id) => api.ok(id, 'cancel'));
    expect(cancelled.spec.map((e) => e.event)).toEqual(['payment.created', 'payment.cancelled']);
    expect(amountsOf(cancelled.spec[1].data).milestones).toEqual({
      first: ['cancelled', 0, 0, 0, 0],
      second: ['cancelled', 0, 0, 0, 0],
    });
    expect(cancelled.msCount).toBe(0);
  });

  it('a dispute resolved back to custody while another milestone holds money: its movement, no spec event for the return', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const got = await scenario(twoMilestones(), async (id, ms) => {
      await api.ok(id, 'deposit');
      await api.okOn(id, ms.first, 'dispute');
      const back = await api.okOn(id, ms.first, 'resolve', { resolution: 'release' });
      expect(back.status).toBe('in_custody');
      await api.okOn(id, ms.second, 'dispute');
      await api.okOn(id, ms.second, 'resolve', { resolution: 'release' });
    });
    expect(got.history.map((h) => `${h.from}>${h.to}`).slice(1)).toEqual([
      'pending_deposit>in_custody',
      'in_custody>disputed',
      'disputed>in_custody',
      'in_custody>disputed',
      'disputed>released',
    ]);
    expect(got.spec.map((e) => [e.event, e.sequence])).toEqual([
      ['payment.created', 1],
      ['payment.deposited', 2],
      ['payment.disputed', 3],
      ['payment.disputed', 5],
      ['payment.released', 6],
    ]);
    expectOnePerStatusChange(got.history, got.spec, ['disputed>in_custody']);
    expect(got.ms.map((e) => [e.event, e.sequence, e.milestone.reference])).toEqual([
      ['payment.milestone_disputed', 3, 'first'],
      ['payment.milestone_released', 4, 'first'],
      ['payment.milestone_disputed', 5, 'second'],
      ['payment.milestone_released', 6, 'second'],
    ]);
  });

  it('a payment created without milestones emits no milestone event, through every kind of step', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const released = await scenario(validPayment({ platform_fee: 1 }), async (id) => {
      await api.ok(id, 'deposit');
      await api.ok(id, 'refund', { amount: 10 });
      await api.ok(id, 'approve');
      await api.ok(id, 'dispute');
      await api.ok(id, 'resolve', { resolution: 'split', refund_amount: 5 });
    });
    const disputed = await scenario(validPayment(), async (id) => {
      await api.ok(id, 'deposit');
      await api.ok(id, 'approve');
      await api.ok(id, 'release');
    });
    for (const got of [released, disputed]) {
      expect(got.events.filter((e) => e.type.startsWith('payment.milestone_'))).toEqual([]);
      expect(got.msCount).toBe(0);
      // The deliveries of a step are recorded with its events: none for the milestone subscriber.
      expect((await deliveryLog(stack, acct.test_api_key, milestonesHook)).filter((d) => d.payment_id === got.p.id)).toEqual([]);
      expect(got.p.milestones).toHaveLength(1);
    }
    expect(released.spec.map((e) => e.event)).toEqual([
      'payment.created',
      'payment.deposited',
      'payment.partially_refunded',
      'payment.approved',
      'payment.disputed',
      'payment.partially_refunded',
      'payment.released',
    ]);
    await expectLedgerOf(stack, acct.test_api_key, await api.get(`/payments/${released.p.id}`));
  });
});

describe('auto-release per milestone on a test clock', () => {
  const DAY = 24 * 3600;
  const advance = (id: string, seconds: number) =>
    stack.http.post(`/api/v1/test_helpers/payments/${id}/advance`, { key: acct.test_api_key, body: { seconds } }).then((r) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body;
    });
  const staged = (first: number, paymentDefault: number) =>
    twoMilestones({
      auto_release_after_seconds: paymentDefault,
      milestones: [
        { reference: 'first', amount: 60, auto_release_after_seconds: first },
        { reference: 'second', amount: 40 },
      ],
    });

  it("each approved milestone releases at its own time; the payment's status follows the rule", async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const p = await api.create(staged(DAY, 3 * DAY));
    const { first, second } = api.ids(p);
    await api.ok(p.id, 'deposit');
    const approved = await api.ok(p.id, 'approve');
    const [a, b] = approved.milestones.map((m: any) => Date.parse(m.release_at));
    // Both approved in one step: each release_at is that moment plus its own delay (the second's the payment's).
    expect([a - Date.parse(approved.updated_at), b - a]).toEqual([DAY * 1000, 2 * DAY * 1000]);

    const early = await advance(p.id, DAY - 60);
    expect(amountsOf(early).milestones).toEqual({ first: ['pending_release', 60, 0, 0, 0], second: ['pending_release', 40, 0, 0, 0] });
    const one = await advance(p.id, 60);
    // The second still holds its money pending release: so is the payment.
    expect(amountsOf(one)).toEqual({
      status: 'pending_release',
      held: 40,
      released: 60,
      refunded: 0,
      fee: 6,
      milestones: { first: ['released', 0, 60, 0, 6], second: ['pending_release', 40, 0, 0, 0] },
    });
    expect(one.milestones.map((m: any) => m.release_at)).toEqual([null, approved.milestones[1].release_at]);
    const both = await advance(p.id, 2 * DAY);
    expect(amountsOf(both)).toMatchObject({ status: 'released', held: 0, released: 100, fee: 10 });
    // The read model's history is written by each step's publication, after the move's answer.
    const history = await eventually(async () => {
      const entries = ((await api.get(`/payments/${p.id}/history`)).data as any[]).slice(-2);
      return entries.every((h) => h.action === 'auto_release') ? entries : undefined;
    });
    expect(history.map((h: any) => [h.action, h.actor, h.milestone_id, h.from, h.to, h.event])).toEqual([
      ['auto_release', 'system', first, 'pending_release', 'pending_release', 'payment.milestone_released'],
      ['auto_release', 'system', second, 'pending_release', 'released', 'payment.released'],
    ]);
    await expectLedgerOf(stack, api.key, both);
  });

  it('each approved milestone waits on a durable timer of its own, cancelled when the milestone moves on', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const p = await api.create(staged(DAY, 3 * DAY));
    const { first, second } = api.ids(p);
    /** The payment's timers started and neither fired nor cancelled, by their summary in the Temporal UI. */
    const pendingTimers = async () => {
      const started = new Map<string, string>();
      for (const e of (await stack.client.workflow.getHandle(p.id).fetchHistory()).events ?? []) {
        const summary = e.userMetadata?.summary?.data;
        if (e.timerStartedEventAttributes)
          started.set(e.timerStartedEventAttributes.timerId!, summary ? JSON.parse(Buffer.from(summary).toString()) : '');
        const ended = e.timerFiredEventAttributes ?? e.timerCanceledEventAttributes;
        if (ended) started.delete(ended.timerId!);
      }
      // Only the payment's own (a delivery's retry waits on timers too).
      return [...started.values()].filter((s) => /^(auto-release|deposit deadline)/.test(s)).sort();
    };
    await api.ok(p.id, 'deposit');
    expect(await pendingTimers()).toEqual([]);
    // The later one approved first: the earlier one's approval adds a timer, it does not replace the other's.
    await api.okOn(p.id, second, 'approve');
    await api.okOn(p.id, first, 'approve');
    expect(await pendingTimers()).toEqual([`auto-release ${first}`, `auto-release ${second}`].sort());
    await api.okOn(p.id, first, 'release');
    expect(await pendingTimers()).toEqual([`auto-release ${second}`]);
    await api.okOn(p.id, second, 'dispute');
    expect(await pendingTimers()).toEqual([]);
  });

  it('an auto-release while another milestone is in custody leaves the payment in_custody; one move past both releases both', async () => {
    const api = paymentsOf(stack, acct.test_api_key);
    const p = await api.create(staged(DAY, 3 * DAY));
    const { first, second } = api.ids(p);
    await api.ok(p.id, 'deposit');
    await api.okOn(p.id, first, 'approve');
    const released = await advance(p.id, DAY);
    expect(amountsOf(released)).toMatchObject({
      status: 'in_custody',
      milestones: { first: ['released', 0, 60, 0, 6], second: ['in_custody', 40, 0, 0, 0] },
    });
    // The second's delay (the payment's 3 days) counts from its own approval, on the payment's clock: a day ahead.
    const approved = await api.okOn(p.id, second, 'approve');
    expect(Date.parse(approved.milestones[1].release_at) - Date.parse(approved.updated_at)).toBe(4 * DAY * 1000);
    expect(amountsOf(await advance(p.id, 3 * DAY))).toMatchObject({ status: 'released', held: 0, released: 100, fee: 10 });

    const q = await api.create(staged(DAY, 3 * DAY));
    await api.ok(q.id, 'deposit');
    await api.ok(q.id, 'approve');
    // Both are due after the move: both fire with it, earliest first, and its answer shows them released.
    const final = await advance(q.id, 4 * DAY);
    expect(final.status).toBe('released');
    expect(amountsOf(final).milestones).toEqual({ first: ['released', 0, 60, 0, 6], second: ['released', 0, 40, 0, 4] });
    // The read model's history is written by each step's publication, after the move's answer.
    const history = await eventually(async () => {
      const entries = ((await api.get(`/payments/${q.id}/history`)).data as any[]).slice(-2);
      return entries.every((h) => h.action === 'auto_release') ? entries : undefined;
    });
    expect(history.map((h: any) => [h.action, h.actor, h.milestone_id])).toEqual([
      ['auto_release', 'system', api.ids(q).first],
      ['auto_release', 'system', api.ids(q).second],
    ]);
  });

  it('ledger:verify passes for the account', async () => {
    expect(await stack.services.ledger.verify(acct.account_id)).toEqual([]);
  });
});
