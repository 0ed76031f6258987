/**
 * Milestones over HTTP on the real stack (docs/money.md, "Deals paid in stages"): the worked example
 * step by step (amounts, events, ledger, balance, history), and what a create with bad milestones
 * refuses. Their actions: test/milestone-actions.test.ts; their events: test/milestone-events.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { amountsOf, expectConsistent, paymentsOf, twoMilestones, workedExample } from './helpers/milestones';
import { eventually, useAccount, useStack } from './helpers/stack';
import { FAST_WEBHOOK_RETRIES, configureWebhook } from './helpers/webhooks';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });
const verify = (accountId: string) => stack.services.ledger.verify(accountId);
const cents = (major: number) => Math.round(major * 100);

describe('the worked example of docs/money.md: 1000.00 USD, fee 29.99, design 200.00, build 500.00, launch 300.00', () => {
  it('moves every minor unit where the docs say, with its events, ledger entries, balance and history', async () => {
    const own = await stack.newAccount();
    const api = paymentsOf(stack, own.test_api_key);
    const receiver = await startReceiver();
    try {
      await configureWebhook(stack, api.key, receiver.url);
      const created = await api.create(workedExample());
      const id = created.id as string;
      const ms = api.ids(created);
      expect(Object.values(ms)).toEqual([expect.stringMatching(/^ms_[0-9A-HJKMNP-TV-Z]{26}$/), expect.any(String), expect.any(String)]);
      expect(new Set(Object.values(ms)).size).toBe(3);
      expect(created.milestones.map((m: any) => [m.reference, m.description, m.amount, m.recipient_email, m.release_at])).toEqual([
        ['design', 'Mock-ups and style guide', 200, 'studio@example.com', null],
        ['build', 'The site itself', 500, 'studio@example.com', null],
        ['launch', 'Go-live and hand-over', 300, 'ops@example.com', null],
      ]);

      /** The events the receiver got since the last step, once it has `n` in all: [event, sequence, milestone reference]. */
      let seen = 0;
      const newEvents = async (n: number) => {
        await eventually(async () => (receiver.received.length >= n ? true : undefined), 20_000, `${n} webhooks`);
        const fresh = receiver.received.slice(seen).map((r) => r.body);
        seen = receiver.received.length;
        for (const e of fresh) {
          // A milestone event names its milestone before `data`, as data.milestones shows it.
          if (e.event.startsWith('payment.milestone_')) {
            expect(Object.keys(e)).toEqual(['event', 'payment_id', 'timestamp', 'sequence', 'milestone', 'data']);
            expect(e.milestone).toEqual(e.data.milestones.find((m: any) => m.id === e.milestone.id));
          } else expect(e.milestone).toBeUndefined();
        }
        return fresh.map((e) => [e.event, e.sequence, ...(e.milestone ? [e.milestone.reference] : [])]);
      };
      expect(await newEvents(1)).toEqual([['payment.created', 1]]);

      const steps: [string, () => Promise<any>, ReturnType<typeof amountsOf>, (string | number)[][]][] = [
        [
          '1. deposit',
          () => api.ok(id, 'deposit'),
          {
            status: 'in_custody',
            held: 1000,
            released: 0,
            refunded: 0,
            fee: 0,
            milestones: {
              design: ['in_custody', 200, 0, 0, 0],
              build: ['in_custody', 500, 0, 0, 0],
              launch: ['in_custody', 300, 0, 0, 0],
            },
          },
          [['payment.deposited', 2]],
        ],
        [
          '2a. approve design',
          () => api.okOn(id, ms.design, 'approve'),
          {
            status: 'in_custody',
            held: 1000,
            released: 0,
            refunded: 0,
            fee: 0,
            milestones: {
              design: ['pending_release', 200, 0, 0, 0],
              build: ['in_custody', 500, 0, 0, 0],
              launch: ['in_custody', 300, 0, 0, 0],
            },
          },
          [['payment.milestone_approved', 3, 'design']],
        ],
        [
          '2b. release design',
          () => api.okOn(id, ms.design, 'release'),
          {
            status: 'in_custody',
            held: 800,
            released: 200,
            refunded: 0,
            fee: 5.99,
            milestones: {
              design: ['released', 0, 200, 0, 5.99],
              build: ['in_custody', 500, 0, 0, 0],
              launch: ['in_custody', 300, 0, 0, 0],
            },
          },
          [['payment.milestone_released', 4, 'design']],
        ],
        [
          '3. refund 50.00 of build',
          () => api.okOn(id, ms.build, 'refund', { amount: 50 }),
          {
            status: 'in_custody',
            held: 750,
            released: 200,
            refunded: 50,
            fee: 5.99,
            milestones: {
              design: ['released', 0, 200, 0, 5.99],
              build: ['in_custody', 450, 0, 50, 0],
              launch: ['in_custody', 300, 0, 0, 0],
            },
          },
          [['payment.partially_refunded', 5]],
        ],
        [
          '4a. approve build',
          () => api.okOn(id, ms.build, 'approve'),
          {
            status: 'in_custody',
            held: 750,
            released: 200,
            refunded: 50,
            fee: 5.99,
            milestones: {
              design: ['released', 0, 200, 0, 5.99],
              build: ['pending_release', 450, 0, 50, 0],
              launch: ['in_custody', 300, 0, 0, 0],
            },
          },
          [['payment.milestone_approved', 6, 'build']],
        ],
        [
          '4b. release build',
          () => api.okOn(id, ms.build, 'release'),
          {
            status: 'in_custody',
            held: 300,
            released: 650,
            refunded: 50,
            fee: 19.49,
            milestones: {
              design: ['released', 0, 200, 0, 5.99],
              build: ['released', 0, 450, 50, 13.5],
              launch: ['in_custody', 300, 0, 0, 0],
            },
          },
          [['payment.milestone_released', 7, 'build']],
        ],
        [
          '5a. dispute launch',
          () => api.okOn(id, ms.launch, 'dispute'),
          {
            status: 'disputed',
            held: 300,
            released: 650,
            refunded: 50,
            fee: 19.49,
            milestones: {
              design: ['released', 0, 200, 0, 5.99],
              build: ['released', 0, 450, 50, 13.5],
              launch: ['disputed', 300, 0, 0, 0],
            },
          },
          [
            ['payment.milestone_disputed', 8, 'launch'],
            ['payment.disputed', 8],
            ['payment.dispute_updated', 8],
          ],
        ],
        [
          '5b. resolve launch with a split, 100.00 refunded',
          () => api.okOn(id, ms.launch, 'resolve', { resolution: 'split', refund_amount: 100 }),
          {
            status: 'released',
            held: 0,
            released: 850,
            refunded: 150,
            fee: 25.49,
            milestones: {
              design: ['released', 0, 200, 0, 5.99],
              build: ['released', 0, 450, 50, 13.5],
              launch: ['released', 0, 200, 100, 6],
            },
          },
          [
            ['payment.partially_refunded', 9],
            ['payment.milestone_released', 9, 'launch'],
            ['payment.released', 9],
            ['payment.dispute_updated', 9],
          ],
        ],
      ];
      let expected = 1;
      for (const [step, run, amounts, events] of steps) {
        const answer = await run();
        expect(amountsOf(answer), step).toEqual(amounts);
        expectConsistent(answer);
        // The read model shows what the answer showed.
        expect(amountsOf(await api.get(`/payments/${id}`)), step).toEqual(amounts);
        expected += events.length;
        expect(await newEvents(expected), step).toEqual(events);
      }
      // The recipient nets 850.00 − 25.49.
      const final = await api.get(`/payments/${id}`);
      expect(cents(final.amount_released) - cents(final.fee_collected)).toBe(82451);

      // The Events API lists the same events, newest first.
      const listed = (await api.get(`/events?payment_id=${id}&limit=100`)).data.reverse();
      expect(listed.map((e: any) => [e.type, e.sequence])).toEqual(receiver.received.map((r) => [r.body.event, r.body.sequence]));
      // Each milestone event names its milestone there too, as its webhook did.
      expect(listed.map((e: any) => e.milestone)).toEqual(receiver.received.map((r) => r.body.milestone));

      // One ledger entry per milestone that moved money, each naming it; postings sum to 0.
      const ledger = (await api.get(`/payments/${id}/ledger`)).data as any[];
      const order = Object.values(ms);
      ledger.sort((a, b) => a.version - b.version || order.indexOf(a.milestone_id) - order.indexOf(b.milestone_id));
      const reference = Object.fromEntries(Object.entries(ms).map(([r, m]) => [m, r]));
      expect(ledger.map((e) => [e.version, reference[e.milestone_id], e.type, e.postings.map((p: any) => [p.account, p.amount])])).toEqual([
        [
          2,
          'design',
          'deposit',
          [
            ['payer_deposits', -200],
            ['custody', 200],
          ],
        ],
        [
          2,
          'build',
          'deposit',
          [
            ['payer_deposits', -500],
            ['custody', 500],
          ],
        ],
        [
          2,
          'launch',
          'deposit',
          [
            ['payer_deposits', -300],
            ['custody', 300],
          ],
        ],
        [
          4,
          'design',
          'release',
          [
            ['custody', -200],
            ['recipient_payable', 194.01],
            ['platform_fees', 5.99],
          ],
        ],
        [
          5,
          'build',
          'refund',
          [
            ['custody', -50],
            ['payer_refunds', 50],
          ],
        ],
        [
          7,
          'build',
          'release',
          [
            ['custody', -450],
            ['recipient_payable', 436.5],
            ['platform_fees', 13.5],
          ],
        ],
        [
          9,
          'launch',
          'split',
          [
            ['custody', -300],
            ['recipient_payable', 194],
            ['payer_refunds', 100],
            ['platform_fees', 6],
          ],
        ],
      ]);
      for (const e of ledger)
        expect(
          e.postings.reduce((s: number, p: any) => s + cents(p.amount), 0),
          e.id,
        ).toBe(0);
      expect(new Set(ledger.map((e) => e.id)).size).toBe(ledger.length);
      // The account's ledger entries name the milestone too.
      const entries = (await api.get(`/ledger_entries?payment_id=${id}&limit=100`)).data as any[];
      expect(entries.map((e) => [e.id, e.milestone_id]).sort()).toEqual(ledger.map((e) => [e.id, e.milestone_id]).sort());

      expect(await api.get('/balance')).toEqual({
        object: 'balance',
        livemode: false,
        balances: [{ currency: 'USD', deposited: 1000, held: 0, released: 850, released_net: 824.51, refunded: 150, fees: 25.49 }],
      });

      const history = (await api.get(`/payments/${id}/history`)).data as any[];
      expect(history.map((h) => [h.seq, h.action, h.from, h.to, h.event, h.milestone_id && reference[h.milestone_id]])).toEqual([
        [1, 'create', null, 'pending_deposit', 'payment.created', null],
        [2, 'deposit', 'pending_deposit', 'in_custody', 'payment.deposited', null],
        [3, 'approve', 'in_custody', 'in_custody', 'payment.milestone_approved', 'design'],
        [4, 'release', 'in_custody', 'in_custody', 'payment.milestone_released', 'design'],
        [5, 'refund', 'in_custody', 'in_custody', 'payment.partially_refunded', 'build'],
        [6, 'approve', 'in_custody', 'in_custody', 'payment.milestone_approved', 'build'],
        [7, 'release', 'in_custody', 'in_custody', 'payment.milestone_released', 'build'],
        [8, 'dispute', 'in_custody', 'disputed', 'payment.disputed', 'launch'],
        [9, 'resolve', 'disputed', 'released', 'payment.released', 'launch'],
      ]);
      expect(await verify(own.account_id)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('a create with bad milestones', () => {
  const own = useAccount(stack);
  const base = twoMilestones();
  const ms = (i: number, over: Record<string, unknown> | null) => {
    const list: unknown[] = base.milestones.map((m) => ({ ...m }));
    list[i] = over === null ? null : { ...(list[i] as object), ...over };
    return list;
  };
  const cases: [string, Record<string, unknown>, string][] = [
    ['amounts summing to 90.00, not 100.00', { milestones: ms(1, { amount: 30 }) }, 'milestones'],
    ['amounts summing to more than the amount', { milestones: ms(1, { amount: 40.01 }) }, 'milestones'],
    ['51 milestones', { amount: 51, milestones: Array.from({ length: 51 }, () => ({ amount: 1 })) }, 'milestones'],
    ['an empty list', { milestones: [] }, 'milestones'],
    ['not a list', { milestones: { amount: 100 } }, 'milestones'],
    ['a zero amount', { milestones: [{ amount: 100 }, { amount: 0 }] }, 'milestones.1.amount'],
    ['a negative amount', { milestones: [{ amount: 110 }, { amount: -10 }] }, 'milestones.1.amount'],
    ['no amount', { milestones: ms(0, { amount: undefined }) }, 'milestones.0.amount'],
    ['an amount as text', { milestones: ms(0, { amount: '60' }) }, 'milestones.0.amount'],
    ['three decimals in USD', { milestones: [{ amount: 89.999 }, { amount: 10.001 }] }, 'milestones.1.amount'],
    [
      'a decimal in JPY',
      { currency: 'JPY', amount: 100, platform_fee: 0, milestones: [{ amount: 98.5 }, { amount: 1.5 }] },
      'milestones.0.amount',
    ],
    ['a duplicate reference', { milestones: ms(1, { reference: 'first' }) }, 'milestones.1.reference'],
    ['an empty reference', { milestones: ms(0, { reference: '' }) }, 'milestones.0.reference'],
    ['a reference of 65 characters', { milestones: ms(0, { reference: 'r'.repeat(65) }) }, 'milestones.0.reference'],
    ['an invalid recipient_email', { milestones: ms(0, { recipient_email: 'not-an-email' }) }, 'milestones.0.recipient_email'],
    ["the payer's email as a recipient", { milestones: ms(1, { recipient_email: 'PAYER@example.com' }) }, 'milestones.1.recipient_email'],
    ['a null item', { milestones: ms(1, null) }, 'milestones.1'],
    ['a number as an item', { milestones: [100] }, 'milestones.0'],
    ['an unknown key in an item', { milestones: ms(0, { colour: 'blue' }) }, 'milestones.0'],
    ['an auto-release of 0 seconds', { milestones: ms(0, { auto_release_after_seconds: 0 }) }, 'milestones.0.auto_release_after_seconds'],
  ];

  it.each(cases)('%s: 400 naming the field under milestones, and nothing created', async (_what, over, field) => {
    const api = paymentsOf(stack, own.test_api_key);
    const before = await api.count();
    const res = await stack.http.post('/api/v1/payments', { key: api.key, body: { ...base, ...over } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toContain(field);
    for (const f of fields) expect(f).toMatch(/^milestones(\.|$)/);
    expect(await api.count()).toBe(before);
  });

  it('the same body with the milestones right is created (the cases above fail for their milestones alone)', async () => {
    const api = paymentsOf(stack, own.test_api_key);
    const before = await api.count();
    const p = await api.create({ ...base, milestones: [{ amount: 59.99, reference: 'r'.repeat(64) }, { amount: 40.01 }] });
    expect(p.milestones.map((m: any) => m.amount)).toEqual([59.99, 40.01]);
    const yen = await api.create({ ...base, currency: 'JPY', amount: 100, platform_fee: 0, milestones: [{ amount: 99 }, { amount: 1 }] });
    expect(yen.milestones.map((m: any) => m.amount)).toEqual([99, 1]);
    const fifty = await api.create({ ...base, amount: 50, milestones: Array.from({ length: 50 }, () => ({ amount: 1 })) });
    expect(fifty.milestones).toHaveLength(50);
    expect(await api.count()).toBe(before + 3);
  });
});
