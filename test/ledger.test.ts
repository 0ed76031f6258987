/**
 * Money that balances (docs/money.md), through the real API, Temporal dev server and PostgreSQL:
 * fees, partial refunds, splits, the ledger's entries and balances, and `ledger:verify`.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMajor } from '../src/ledger/money.rules';
import { ledgerScheduleId } from '../src/platform/worker/schedules';
import { ledgerVerifyWorkflow } from '../src/platform/workflows.workflow';
import { moneyJson } from '../src/ledger/moneyFields.rules';
import { eventually, scriptEnv, useAccount, useStack, validPayment } from './helpers/stack';

const run = promisify(execFile);
const stack = useStack();
const acct = useAccount(stack);

const post = (path: string, body?: unknown, key = acct.test_api_key) => stack.http.post(path, { key, body });
const get = (path: string, key = acct.test_api_key) => stack.http.get(path, { key });

async function create(over: Record<string, unknown>, key = acct.test_api_key) {
  const res = await post('/api/v1/payments', validPayment(over), key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}
async function act(id: string, action: string, body?: unknown, key = acct.test_api_key) {
  return post(`/api/v1/payments/${id}/${action}`, body, key);
}
async function ok(id: string, action: string, body?: unknown, key = acct.test_api_key) {
  const res = await act(id, action, body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
const verify = (accountId: string) => stack.services.ledger.verify(accountId);

/**
 * With the payment's milestones in the read model replaced by `tampered` (as a DBA might), the
 * verification finds exactly `breaches` ([check, message]); with `original` back, none.
 */
async function expectBreachesWhileTampered(accountId: string, id: string, original: unknown[], tampered: unknown[], breaches: string[][]) {
  const setMilestones = (milestones: unknown[]) =>
    stack
      .db('payments')
      .where({ id })
      .update({ milestones: moneyJson(milestones) });
  await setMilestones(tampered);
  try {
    expect((await verify(accountId)).map((v) => [v.check, v.message])).toEqual(breaches);
  } finally {
    await setMilestones(original);
  }
  expect(await verify(accountId)).toEqual([]);
}
/** As a DBA could: the immutability trigger off for one statement, an entry's custody posting changed. */
const tamperPosting = (entryId: string, amountMinor: number) =>
  stack.db.transaction(async (trx) => {
    await trx.raw('alter table ledger_postings disable trigger ledger_postings_immutable');
    await trx('ledger_postings').where({ entry_id: entryId, ledger_account: 'custody' }).update({ amount_minor: amountMinor });
    await trx.raw('alter table ledger_postings enable trigger ledger_postings_immutable');
  });

/** The amounts of a payment, as the API shows them. */
const amounts = (p: any) => ({
  amount_held: p.amount_held,
  amount_released: p.amount_released,
  amount_refunded: p.amount_refunded,
  fee_collected: p.fee_collected,
});

describe('the worked example of docs/money.md: 100.00 USD, fee 5.00, partial refund 20.00, release', () => {
  it('moves every minor unit where the docs say, in the payment, its ledger and the balance', async () => {
    const own = await stack.newAccount();
    const id = await create({ amount: 100, currency: 'USD', platform_fee: 5 }, own.test_api_key);
    const created = (await get(`/api/v1/payments/${id}`, own.test_api_key)).body;
    expect({ platform_fee: created.platform_fee, ...amounts(created) }).toEqual({
      platform_fee: 5,
      amount_held: 0,
      amount_released: 0,
      amount_refunded: 0,
      fee_collected: 0,
    });
    expect(amounts(await ok(id, 'deposit', undefined, own.test_api_key))).toMatchObject({ amount_held: 100 });

    const partial = await ok(id, 'refund', { amount: 20, reason: 'one item returned' }, own.test_api_key);
    expect(partial.status).toBe('in_custody');
    expect(amounts(partial)).toEqual({ amount_held: 80, amount_released: 0, amount_refunded: 20, fee_collected: 0 });

    await ok(id, 'approve', undefined, own.test_api_key);
    const released = await ok(id, 'release', undefined, own.test_api_key);
    expect(released.status).toBe('released');
    // floor(5.00 × 80.00 / 100.00) = 4.00: the recipient nets 76.00.
    expect(amounts(released)).toEqual({ amount_held: 0, amount_released: 80, amount_refunded: 20, fee_collected: 4 });

    const history = (await get(`/api/v1/payments/${id}/events`, own.test_api_key)).body.data;
    expect(history.map((e: any) => [e.action, e.event, e.to])).toEqual([
      ['create', 'payment.created', 'pending_deposit'],
      ['deposit', 'payment.deposited', 'in_custody'],
      ['refund', 'payment.partially_refunded', 'in_custody'],
      ['approve', 'payment.approved', 'pending_release'],
      ['release', 'payment.released', 'released'],
    ]);

    const ledger = (await get(`/api/v1/payments/${id}/ledger`, own.test_api_key)).body;
    expect(ledger.data.map((e: any) => [e.type, e.version, e.postings])).toEqual([
      [
        'deposit',
        2,
        [
          { account: 'payer_deposits', address: 'payer_deposits', amount: -100 },
          { account: 'custody', address: `escrow:${id}`, amount: 100 },
        ],
      ],
      [
        'refund',
        3,
        [
          { account: 'custody', address: `escrow:${id}`, amount: -20 },
          { account: 'payer_refunds', address: 'payer_refunds', amount: 20 },
        ],
      ],
      [
        'release',
        5,
        [
          { account: 'custody', address: `escrow:${id}`, amount: -80 },
          { account: 'recipient_payable', address: 'recipient_payable', amount: 76 },
          { account: 'platform_fees', address: 'platform_fees', amount: 4 },
        ],
      ],
    ]);
    const balance = (await get('/api/v1/balance', own.test_api_key)).body;
    expect(balance).toEqual({
      object: 'balance',
      livemode: false,
      balances: [{ currency: 'USD', deposited: 100, held: 0, released: 80, released_net: 76, refunded: 20, fees: 4 }],
    });
    // One word, one meaning: the balance's released is the payment's amount_released, before the fee.
    const payment = (await get(`/api/v1/payments/${id}`, own.test_api_key)).body;
    expect(balance.balances[0].released).toBe(payment.amount_released);
    expect(balance.balances[0].released_net).toBe(payment.amount_released - payment.fee_collected);
    // The live mode of the same account holds nothing: modes never mix.
    expect((await get('/api/v1/balance', own.live_api_key)).body).toEqual({ object: 'balance', livemode: true, balances: [] });
    expect(await verify(own.account_id)).toEqual([]);
  });
});

describe('partial refunds, splits and fees', () => {
  it('a split refunds part and releases the rest in one entry, with the fee pro rata (JPY)', async () => {
    const id = await create({ amount: 1000, currency: 'JPY', platform_fee: 100 });
    await ok(id, 'deposit');
    await ok(id, 'dispute');
    const resolved = await ok(id, 'resolve', { resolution: 'split', refund_amount: 300 });
    expect(resolved.status).toBe('released');
    expect(amounts(resolved)).toEqual({ amount_held: 0, amount_released: 700, amount_refunded: 300, fee_collected: 70 });
    const ledger = (await get(`/api/v1/payments/${id}/ledger`)).body.data;
    expect(ledger.at(-1)).toMatchObject({
      type: 'split',
      postings: [
        { account: 'custody', amount: -1000 },
        { account: 'recipient_payable', amount: 630 },
        { account: 'payer_refunds', amount: 300 },
        { account: 'platform_fees', amount: 70 },
      ],
    });
  });

  it('refunding exactly what is held empties custody: refunded, payment.refunded', async () => {
    const id = await create({ amount: 10.5, currency: 'BHD', platform_fee: 0.125 });
    await ok(id, 'deposit');
    await ok(id, 'refund', { amount: 0.5 });
    const rest = await ok(id, 'refund', { amount: 10 });
    expect(rest.status).toBe('refunded');
    expect(amounts(rest)).toEqual({ amount_held: 0, amount_released: 0, amount_refunded: 10.5, fee_collected: 0 });
    const history = (await get(`/api/v1/payments/${id}/events`)).body.data;
    expect(history.map((e: any) => e.event).slice(-2)).toEqual(['payment.partially_refunded', 'payment.refunded']);
  });

  it('a release after partial refunds collects the fee on what was released only, rounded down; auto-release does the same', async () => {
    const id = await create({ amount: 100, currency: 'USD', platform_fee: 3.33, auto_release_after_seconds: 3600 });
    await ok(id, 'deposit');
    await ok(id, 'refund', { amount: 33.33 });
    await ok(id, 'approve');
    const advanced = await post(`/api/v1/test_helpers/payments/${id}/advance`, { seconds: 3600 });
    expect(advanced.status).toBe(200);
    expect(advanced.body.status).toBe('released');
    // floor(333 × 6667 / 10000) = floor(222.01) = 222 minor units.
    expect(amounts(advanced.body)).toEqual({ amount_held: 0, amount_released: 66.67, amount_refunded: 33.33, fee_collected: 2.22 });
    expect(await verify(acct.account_id)).toEqual([]);
  });

  it('a cancel before deposit writes nothing to the ledger', async () => {
    const id = await create({ amount: 5, currency: 'USD', platform_fee: 1 });
    await ok(id, 'cancel');
    expect((await get(`/api/v1/payments/${id}/ledger`)).body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it('50 concurrent partial refunds never take more than is held', async () => {
    const id = await create({ amount: 100, currency: 'USD' });
    await ok(id, 'deposit');
    const answers = await Promise.all(Array.from({ length: 50 }, () => act(id, 'refund', { amount: 3 })));
    const statuses = answers.map((a) => a.status);
    // 33 × 3.00 fit in 100.00; every later one finds 1.00 held and is refused, naming the field.
    expect(statuses.filter((s) => s === 200)).toHaveLength(33);
    expect(statuses.filter((s) => s === 400)).toHaveLength(17);
    for (const refused of answers.filter((a) => a.status === 400)) {
      expect(refused.body.error.details).toEqual([{ field: 'amount', message: 'amount must be at most the amount held, 1.00 USD' }]);
    }
    const payment = (await get(`/api/v1/payments/${id}`)).body;
    expect(payment.status).toBe('in_custody');
    expect(amounts(payment)).toEqual({ amount_held: 1, amount_released: 0, amount_refunded: 99, fee_collected: 0 });
    const ledger = await eventually(async () => {
      const l = (await get(`/api/v1/payments/${id}/ledger`)).body.data;
      return l.length === 34 ? l : undefined;
    });
    expect(ledger.filter((e: any) => e.type === 'refund')).toHaveLength(33);
    expect(await verify(acct.account_id)).toEqual([]);
  });
});

describe('bad input is a 400 naming the field, and changes nothing', () => {
  it.each([
    [{ amount: 10, platform_fee: 10.01 }, 'platform_fee', 'platform_fee must not exceed amount'],
    [{ amount: 10, platform_fee: 1.001 }, 'platform_fee', 'USD amounts can have at most 2 fractional digits'],
    [{ amount: 10, platform_fee: -1 }, 'platform_fee', 'platform_fee must not be negative'],
    [{ amount: 10, platform_fee: '1' }, 'platform_fee', 'platform_fee must be a number in major units, e.g. 5.00'],
    [{ amount: 1000, currency: 'JPY', platform_fee: 0.5 }, 'platform_fee', 'JPY amounts cannot have fractional digits'],
  ])('create %j', async (over, field, message) => {
    const res = await post('/api/v1/payments', validPayment(over));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, message });
  });

  it('refunds and splits the payment cannot pay', async () => {
    const id = await create({ amount: 100, currency: 'USD', platform_fee: 5 });
    await ok(id, 'deposit');
    await ok(id, 'dispute');
    const before = (await get(`/api/v1/payments/${id}`)).body;
    const cases: [string, unknown, string, string][] = [
      ['refund', { amount: 0 }, 'amount', 'amount must be greater than 0'],
      ['refund', { amount: -5 }, 'amount', 'amount must be greater than 0'],
      ['refund', { amount: 100.01 }, 'amount', 'amount must be at most the amount held, 100.00 USD'],
      ['refund', { amount: 1.001 }, 'amount', 'USD amounts can have at most 2 fractional digits'],
      ['refund', { amount: '5' }, 'amount', 'amount must be a number in major units, e.g. 20.00'],
      ['resolve', { resolution: 'split', refund_amount: 0 }, 'refund_amount', 'refund_amount must be greater than 0'],
      [
        'resolve',
        { resolution: 'split', refund_amount: 100 },
        'refund_amount',
        'refund_amount must be less than the amount held, 100.00 USD',
      ],
      ['resolve', { resolution: 'split' }, 'refund_amount', 'refund_amount is required for the split resolution'],
      ['resolve', { resolution: 'release', refund_amount: 5 }, 'refund_amount', 'refund_amount is only for the split resolution'],
      ['resolve', { resolution: 'refund', refund_amount: 5 }, 'refund_amount', 'refund_amount is only for the split resolution'],
    ];
    for (const [action, body, field, message] of cases) {
      const res = await act(id, action, body);
      expect(res.status, `${action} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error.details).toEqual([{ field, message }]);
    }
    const after = (await get(`/api/v1/payments/${id}`)).body;
    expect(after).toEqual(before);
    expect((await get(`/api/v1/payments/${id}/ledger`)).body.data).toHaveLength(1);
  });

  it('a refund of a payment not yet deposited is 409 invalid_transition, not an amount error', async () => {
    const id = await create({ amount: 10, currency: 'USD' });
    const res = await act(id, 'refund', { amount: 5 });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_transition');
  });
});

describe('the ledger API', () => {
  it('lists entries newest first with cursors and filters, scoped by account and mode', async () => {
    const own = await stack.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await create({ amount: 10 + i, currency: 'USD' }, own.test_api_key);
      await ok(id, 'deposit', undefined, own.test_api_key);
      ids.push(id);
    }
    await ok(ids[0], 'refund', { amount: 1 }, own.test_api_key);
    const all = (await get('/api/v1/ledger_entries?limit=10', own.test_api_key)).body;
    expect(all.data.map((e: any) => [e.payment_id, e.type])).toEqual([
      [ids[0], 'refund'],
      [ids[2], 'deposit'],
      [ids[1], 'deposit'],
      [ids[0], 'deposit'],
    ]);
    const page1 = (await get('/api/v1/ledger_entries?limit=2', own.test_api_key)).body;
    expect(page1.has_more).toBe(true);
    const page2 = (await get(`/api/v1/ledger_entries?limit=2&starting_after=${page1.data[1].id}`, own.test_api_key)).body;
    expect([...page1.data, ...page2.data].map((e: any) => e.id)).toEqual(all.data.map((e: any) => e.id));
    const back = (await get(`/api/v1/ledger_entries?limit=2&ending_before=${page2.data[0].id}`, own.test_api_key)).body;
    expect(back.data.map((e: any) => e.id)).toEqual(page1.data.map((e: any) => e.id));
    const refunds = (await get('/api/v1/ledger_entries?type=refund', own.test_api_key)).body.data;
    expect(refunds.map((e: any) => e.payment_id)).toEqual([ids[0]]);
    const one = (await get(`/api/v1/ledger_entries?payment_id=${ids[1]}`, own.test_api_key)).body.data;
    expect(one.map((e: any) => e.type)).toEqual(['deposit']);
    // Another account sees none of it; its payment's ledger is 404; live mode sees nothing either.
    expect((await get('/api/v1/ledger_entries', acct.live_api_key)).body.data).toEqual([]);
    expect((await get(`/api/v1/payments/${ids[0]}/ledger`)).status).toBe(404);
    expect((await get('/api/v1/ledger_entries?type=bogus', own.test_api_key)).status).toBe(400);
    expect((await get('/api/v1/balance?x=1', own.test_api_key)).status).toBe(400);
  });
});

describe('PostgreSQL enforces the ledger, and ledger:verify finds what a DBA changed', () => {
  it('refuses an unbalanced entry and any change to an entry', async () => {
    const id = await create({ amount: 7, currency: 'USD' });
    await ok(id, 'deposit');
    const [entry] = (await get(`/api/v1/payments/${id}/ledger`)).body.data;
    await expect(
      stack.db.transaction(async (trx) => {
        await trx('ledger_entries').insert({
          id: 'le_unbalanced0000000000000000',
          payment_id: id,
          version: 99,
          account_id: acct.account_id,
          livemode: false,
          currency: 'USD',
          exponent: 2,
          type: 'refund',
          created_at: new Date(),
        });
        await trx('ledger_postings').insert([
          { entry_id: 'le_unbalanced0000000000000000', ledger_account: 'custody', address: `escrow:${id}`, amount_minor: -100 },
          { entry_id: 'le_unbalanced0000000000000000', ledger_account: 'payer_refunds', address: 'payer_refunds', amount_minor: 99 },
        ]);
      }),
    ).rejects.toThrow(/does not balance/);
    await expect(stack.db('ledger_postings').where({ entry_id: entry.id }).update({ amount_minor: 1 })).rejects.toThrow(/never change/);
    await expect(stack.db('ledger_entries').where({ id: entry.id }).delete()).rejects.toThrow(/never change/);
  });

  it('a posting corrupted directly in PostgreSQL makes npm run ledger:verify exit 1 naming the payment', async () => {
    const own = await stack.newAccount();
    const id = await create({ amount: 42, currency: 'USD' }, own.test_api_key);
    await ok(id, 'deposit', undefined, own.test_api_key);
    const env = scriptEnv(stack);
    const script = ['tsx', 'scripts/ledger-verify.ts', '--account', own.account_id];
    const root = path.resolve(__dirname, '..');
    const clean = await run('npx', script, { cwd: root, env });
    expect(clean.stdout).toContain('ledger verified: every invariant holds');

    const [entry] = (await get(`/api/v1/payments/${id}/ledger`, own.test_api_key)).body.data;
    const tamper = (amount: number) => tamperPosting(entry.id, amount);
    await tamper(4100);
    try {
      const failed = await run('npx', script, { cwd: root, env }).then(
        () => undefined,
        (err: { code: number; stdout: string }) => err,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toContain('ledger verification failed');
      expect(failed?.stdout).toMatch(new RegExp(`\\[entry_balanced\\] ${id}: entry ${entry.id} has 2 postings summing to -100`));
      expect(failed?.stdout).toMatch(new RegExp(`\\[payment_amounts\\] ${id}: custody in the ledger 4100 ≠ amount_held 4200`));
      expect(failed?.stdout).toMatch(/\[balance_equals_postings\].*custody.*is 4200; its postings sum to 4100/);
    } finally {
      await tamper(4200);
    }
    expect(await verify(own.account_id)).toEqual([]);
  });

  it('money moved between two milestones in the read model is a breach each milestone names, though the payment’s sums still agree', async () => {
    const own = await stack.newAccount();
    const id = await create({ amount: 100, currency: 'USD', milestones: [{ amount: 60 }, { amount: 40 }] }, own.test_api_key);
    await ok(id, 'deposit', undefined, own.test_api_key);
    await eventually(async () =>
      (await get(`/api/v1/payments/${id}/ledger`, own.test_api_key)).body.data.length === 2 ? true : undefined,
    );
    expect(await verify(own.account_id)).toEqual([]);
    const row = await stack.db('payments').where({ id }).first();
    const [a, b] = row.milestones as { id: string; heldMinor: string }[];
    const shifted = [
      { ...a, heldMinor: 5900n },
      { ...b, heldMinor: 4100n },
    ];
    await expectBreachesWhileTampered(own.account_id, id, [a, b], shifted, [
      ['milestone_amounts', `milestone ${a.id}: held 5900 + released 0 + refunded 0 ≠ 6000 deposited`],
      ['milestone_amounts', `milestone ${a.id}: custody in the ledger 6000 ≠ amount_held 5900`],
      ['milestone_amounts', `milestone ${b.id}: held 4100 is outside 0..4000`],
      ['milestone_amounts', `milestone ${b.id}: held 4100 + released 0 + refunded 0 ≠ 4000 deposited`],
      ['milestone_amounts', `milestone ${b.id}: custody in the ledger 4000 ≠ amount_held 4100`],
      [
        'workflow_state',
        `milestone ${a.id}: the workflow has it in_custody, holding 6000, released 0, refunded 0, fee 0, release_at null; the read model in_custody, 5900, 0, 0, 0, null`,
      ],
      [
        'workflow_state',
        `milestone ${b.id}: the workflow has it in_custody, holding 4000, released 0, refunded 0, fee 0, release_at null; the read model in_custody, 4100, 0, 0, 0, null`,
      ],
    ]);
  });

  it('a milestone’s auto-release time the read model has otherwise than the workflow is a breach naming it, though every amount agrees', async () => {
    const own = await stack.newAccount();
    const id = await create(
      { amount: 100, currency: 'USD', auto_release_after_seconds: 3600, milestones: [{ amount: 60 }, { amount: 40 }] },
      own.test_api_key,
    );
    await ok(id, 'deposit', undefined, own.test_api_key);
    const payment = (await get(`/api/v1/payments/${id}`, own.test_api_key)).body;
    const approved = await post(`/api/v1/payments/${id}/milestones/${payment.milestones[0].id}/approve`, undefined, own.test_api_key);
    expect(approved.status).toBe(200);
    expect(await verify(own.account_id)).toEqual([]);
    const row = await stack.db('payments').where({ id }).first();
    const [a, b] = row.milestones as { id: string; releaseAt: string }[];
    const later = new Date(Date.parse(a.releaseAt) + 60_000).toISOString();
    await expectBreachesWhileTampered(
      own.account_id,
      id,
      [a, b],
      [{ ...a, releaseAt: later }, b],
      [
        [
          'workflow_state',
          `milestone ${a.id}: the workflow has it pending_release, holding 6000, released 0, refunded 0, fee 0, release_at ${a.releaseAt}; the read model pending_release, 6000, 0, 0, 0, ${later}`,
        ],
      ],
    );
  });

  it('the worker keeps a Schedule that runs the same check as a workflow, which exports ledger_invariant_violations', async () => {
    const described = await stack.client.schedule.getHandle(ledgerScheduleId(stack.taskQueue)).describe();
    expect(described.spec.intervals?.[0]?.every).toBe(stack.config.LEDGER_VERIFY_INTERVAL);
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'ledgerVerifyWorkflow', taskQueue: stack.taskQueue });
    // The scheduled workflow checks every account; here it is narrowed to one with a tampered posting
    // (the shared test database holds other files' payments, whose stacks come and go).
    const own = await stack.newAccount();
    const id = await create({ amount: 42, currency: 'USD' }, own.test_api_key);
    await ok(id, 'deposit', undefined, own.test_api_key);
    const [entry] = (await get(`/api/v1/payments/${id}/ledger`, own.test_api_key)).body.data;
    const check = () =>
      stack.client.workflow.execute(ledgerVerifyWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `ledger-verify-test-${randomUUID()}`,
        args: [{ accountId: own.account_id }],
      });
    const gauge = async () =>
      (await fetch(`${stack.api.metricsUrl}/metrics`).then((r) => r.text())).match(/^ledger_invariant_violations (\d+)$/m)?.[1];
    expect(await check()).toEqual({ violations: 0, report: ['ledger verified: every invariant holds'] });
    expect(await gauge()).toBe('0');
    await tamperPosting(entry.id, 4100);
    try {
      const result = await check();
      // The entry, its kept balance (the payment's custody account: one balance table) and the payment's amounts.
      expect(result.violations).toBe(3);
      expect(result.report[0]).toBe('ledger verification failed: 3 breaches');
      expect(result.report.filter((line) => line.includes(id))).toHaveLength(3);
      expect(await gauge()).toBe('3');
    } finally {
      await tamperPosting(entry.id, 4200);
    }
  });
});

describe('random lifecycles keep every minor unit accounted for', () => {
  const currencies = [
    ['JPY', 0],
    ['USD', 2],
    ['BHD', 3],
  ] as const;
  type Step =
    | { kind: 'deposit' | 'approve' | 'dispute' | 'release' | 'cancel' | 'refund_all' | 'resolve_release' | 'resolve_refund' | 'clock' }
    | { kind: 'refund_part' | 'split'; share: number };
  const simple = (kind: Exclude<Step['kind'], 'refund_part' | 'split'>, weight: number) => ({
    arbitrary: fc.constant<Step>({ kind }),
    weight,
  });
  const part = (kind: 'refund_part' | 'split') => fc.integer({ min: 1, max: 99 }).map((percent): Step => ({ kind, share: percent / 100 }));
  // Weighted towards the steps that move money, so that most runs release, refund or split something.
  const step: fc.Arbitrary<Step> = fc.oneof(
    simple('deposit', 1),
    simple('approve', 3),
    simple('dispute', 2),
    simple('release', 2),
    simple('cancel', 1),
    simple('refund_all', 1), // ends the run: rarer
    simple('resolve_release', 1),
    simple('resolve_refund', 1),
    simple('clock', 2),
    { arbitrary: part('refund_part'), weight: 3 },
    { arbitrary: part('split'), weight: 2 },
  );

  it('after every step: held + released + refunded = amount, the fee is pro rata, and ledger:verify passes', async () => {
    const own = await stack.newAccount();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...currencies),
        fc.bigInt({ min: 1n, max: 10_000_000n }),
        fc.integer({ min: 0, max: 10_000 }),
        // Most lifecycles start with a deposit, so that the money moves in most runs.
        fc.tuple(fc.integer({ min: 0, max: 3 }), fc.array(step, { minLength: 1, maxLength: 6 })),
        async ([currency, exponent], amountMinor, feeBasisPoints, [depositFirst, randomSteps]) => {
          const steps: Step[] = depositFirst ? [{ kind: 'deposit' }, ...randomSteps] : randomSteps;
          const feeMinor = (amountMinor * BigInt(feeBasisPoints)) / 10_000n;
          const major = (minor: bigint) => Number(formatMajor(minor, currency, exponent));
          const id = await create(
            {
              amount: major(amountMinor),
              currency,
              platform_fee: major(feeMinor),
              auto_release_after_seconds: 60,
              deposit_deadline_seconds: 3600,
            },
            own.test_api_key,
          );
          for (const s of steps) {
            const current = (await get(`/api/v1/payments/${id}`, own.test_api_key)).body;
            const heldMinor = BigInt(Math.round(current.amount_held * 10 ** exponent));
            const part = 'share' in s ? BigInt(Math.floor(Number(heldMinor) * s.share)) : 0n;
            const res =
              s.kind === 'clock'
                ? await post(`/api/v1/test_helpers/payments/${id}/advance`, { seconds: 3600 }, own.test_api_key)
                : s.kind === 'refund_part'
                  ? await act(id, 'refund', { amount: major(part) }, own.test_api_key)
                  : s.kind === 'split'
                    ? await act(id, 'resolve', { resolution: 'split', refund_amount: major(part) }, own.test_api_key)
                    : s.kind === 'refund_all'
                      ? await act(id, 'refund', undefined, own.test_api_key)
                      : s.kind.startsWith('resolve_')
                        ? await act(id, 'resolve', { resolution: s.kind.slice('resolve_'.length) }, own.test_api_key)
                        : await act(id, s.kind, undefined, own.test_api_key);
            // Allowed, refused as a transition (409) or as an amount (400): never anything else.
            expect([200, 400, 409], JSON.stringify(res.body)).toContain(res.status);
            const p = (await get(`/api/v1/payments/${id}`, own.test_api_key)).body;
            const minor = (n: number) => BigInt(Math.round(n * 10 ** exponent));
            const deposited = ['pending_deposit', 'cancelled'].includes(p.status) ? 0n : amountMinor;
            expect(minor(p.amount_held) + minor(p.amount_released) + minor(p.amount_refunded)).toBe(deposited);
            expect(minor(p.fee_collected)).toBe((feeMinor * minor(p.amount_released)) / amountMinor);
            expect(minor(p.fee_collected) <= feeMinor).toBe(true);
            expect(await verify(own.account_id)).toEqual([]);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
