/**
 * The projection's one statement (src/payments/projection.repository.ts): each row written once however often it
 * runs, never an error for concurrent writers (a publication's attempt that timed out still running
 * beside its retry, two steps' publications at once), and the deliveries it plans named as the
 * TypeScript rule names them.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../src/payments/paymentTypes.rules';
import type { PaymentDetails } from '../src/payments/paymentRecord.rules';
import { paymentView } from '../src/payments/payment.view';
import { envelope, transitionEnvelopes } from '../src/webhooks/webhookEnvelope.view';
import { projectAndPlan, projectPayment } from '../src/payments/projection.repository';
import { recordAttempt } from '../src/webhooks/attemptLog.repository';
import { configureWebhook, sampleDeposit } from './helpers/webhooks';
import { useAccount, useStack } from './helpers/stack';
import { statementsNaming } from './helpers/statements';

/** The reason key of these projections (the service derives its own from WEBHOOK_SECRET_KEY). */
const REASON_KEY = Buffer.alloc(32, 7);

/** The delivery id rule (src/payments/projection.repository.ts), written out here: `dlv_` and 26 hex characters of SHA-256 of payment|version|configuration. */
const deliveryId = (paymentId: string, version: number, webhookId: string, ordinal?: number) =>
  `dlv_${createHash('sha256')
    .update(`${paymentId}|${version}|${ordinal === undefined ? '' : `${ordinal}|`}${webhookId}`)
    .digest('hex')
    .slice(0, 26)}`;

/** A split at version 3 of what `sampleDeposit` held: 3.00 refunded, 7.00 released, no fee. */
function split(accountId: string): { state: PaymentDetails; entry: HistoryEntry; deposit: { state: PaymentDetails; entry: HistoryEntry } } {
  const deposit = sampleDeposit(accountId);
  const held = deposit.state;
  const at = new Date().toISOString();
  const state: PaymentDetails = {
    ...held,
    status: 'released',
    version: 3,
    updatedAt: at,
    heldMinor: 0n,
    releasedMinor: 700n,
    refundedMinor: 300n,
  };
  const entry: HistoryEntry = {
    seq: 3,
    action: 'resolve',
    from: 'disputed',
    to: 'released',
    event: 'payment.released',
    actor: 'test',
    reason: null,
    at,
    movement: { deposited: 0n, refunded: 300n, released: 700n, fee: 0n },
  };
  return { state, entry, deposit };
}

describe('the projection statement', () => {
  const stack = useStack();
  const acct = useAccount(stack);

  it('writes each row once and moves the balances once, with eight writers at the same time', async () => {
    const { state, entry } = sampleDeposit(acct.account_id);
    await Promise.all(Array.from({ length: 8 }, () => projectPayment(stack.db, state, entry, REASON_KEY)));
    await projectPayment(stack.db, state, entry, REASON_KEY); // and once more, after them

    const count = async (table: string, where: Record<string, unknown>) =>
      Number((await stack.db(table).where(where).count({ n: '*' }).first())!.n);
    expect(await count('payment_events', { payment_id: state.id })).toBe(1);
    expect(await count('events', { payment_id: state.id })).toBe(1);
    expect(await count('ledger_entries', { payment_id: state.id })).toBe(1);
    expect(await count('audit_leaves', { payment_id: state.id })).toBe(2); // the transition and the ledger entry
    const balances = await stack.db('ledger_balances').where({ account_id: acct.account_id, livemode: false }).orderBy('ledger_account');
    expect(balances.map((b: { ledger_account: string; balance_minor: string }) => [b.ledger_account, String(b.balance_minor)])).toEqual([
      ['custody', '1000'],
      ['payer_deposits', '-1000'],
    ]);
    const row = await stack.db('payments').where({ id: state.id }).first();
    expect([row.status, row.version, String(row.held_minor)]).toEqual(['in_custody', 2, '1000']);
  });

  it('never fails a writer that loses a race on a table with two unique indexes (events, ledger entries): 100 rounds of eight', async () => {
    // A conflict target names the only arbiter; the loser then hit the other unique index with a
    // unique violation (23505), which the publication treats as data refused for good: its
    // deliveries were never planned. Measured before the fix: 37 failed writers in 300 rounds of three.
    const failures: unknown[] = [];
    for (let round = 0; round < 100; round++) {
      const { state, entry } = sampleDeposit(acct.account_id);
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => projectPayment(stack.db, state, entry, REASON_KEY)));
      failures.push(...results.filter((r) => r.status === 'rejected').map((r) => r.reason));
    }
    expect(failures.map((e) => String(e).slice(-120))).toEqual([]);
  });

  it('plans one delivery per subscribed configuration, with the id the rule derives; a retry finds its logged attempts', async () => {
    const hook = await configureWebhook(stack, acct.test_api_key, 'http://127.0.0.1:9/hook');
    const { state, entry } = sampleDeposit(acct.account_id);
    const body = envelope(entry.event, entry.at, paymentView(state), state.version);

    const first = await projectAndPlan(stack.db, state, entry, [{ envelope: body, ordinal: 0 }], REASON_KEY);
    expect(first.map((p) => [p.delivery.id, p.delivery.status, p.delivery.attempts, p.webhook.url])).toEqual([
      [deliveryId(state.id, state.version, hook.id), 'pending', 0, 'http://127.0.0.1:9/hook'],
    ]);
    expect(JSON.parse(first[0].delivery.body)).toEqual(body);
    const stored = await stack.db('webhook_deliveries').where({ payment_id: state.id });
    expect(stored.map((d: { id: string; body: string }) => [d.id, d.body])).toEqual([[first[0].delivery.id, first[0].delivery.body]]);

    await recordAttempt(stack.db, first[0], { at: new Date(), statusCode: 503, durationMs: 3, error: 'HTTP 503' }, 'pending');
    const retried = await projectAndPlan(stack.db, state, entry, [{ envelope: body, ordinal: 0 }], REASON_KEY);
    expect(retried.map((p) => [p.delivery.id, p.delivery.status, p.delivery.attempts])).toEqual([[first[0].delivery.id, 'pending', 1]]);
    expect(await stack.db('webhook_deliveries').where({ payment_id: state.id }).count({ n: '*' }).first()).toEqual({ n: '1' });
  });

  it('logs an attempt in one statement while its count is the one it read; attempts that read the same count each get a number of their own', async () => {
    const own = await stack.newAccount();
    await configureWebhook(stack, own.test_api_key, 'http://127.0.0.1:9/log');
    const { state, entry } = sampleDeposit(own.account_id);
    const body = envelope(entry.event, entry.at, paymentView(state), state.version);
    const [planned] = await projectAndPlan(stack.db, state, entry, [{ envelope: body, ordinal: 0 }], REASON_KEY);
    const failed = () => ({ at: new Date(), statusCode: 503, durationMs: 3, error: 'HTTP 503' });

    const firstLog = await statementsNaming(stack.db, planned.delivery.id, () => recordAttempt(stack.db, planned, failed(), 'pending'));
    expect(firstLog.result).toBe(1);
    expect(firstLog.statements).toHaveLength(1);

    // Three attempts that all read a count of 1 as they began: numbered 2, 3 and 4, each logged once with its leaf.
    const readOne = { ...planned, delivery: { ...planned.delivery, attempts: 1 } };
    const numbers = await Promise.all([0, 1, 2].map(() => recordAttempt(stack.db, readOne, failed(), 'pending')));
    expect(numbers.sort()).toEqual([2, 3, 4]);
    const logged = await stack
      .db('webhook_delivery_attempts')
      .where({ delivery_id: planned.delivery.id })
      .orderBy('attempt')
      .pluck('attempt');
    expect(logged).toEqual([1, 2, 3, 4]);
    const leaves = await stack.db('audit_leaves').where({ payment_id: state.id, kind: 'webhook.attempt' }).count({ n: '*' }).first();
    expect(leaves).toEqual({ n: '4' });
    expect(await stack.db('webhook_deliveries').where({ id: planned.delivery.id }).first('attempts')).toEqual({ attempts: 4 });
  });

  it("plans a split's refunded part before its release, for each configuration as subscribed; two events, one ledger entry, once", async () => {
    // An account of its own: the configurations above would be subscribed too.
    const own = await stack.newAccount();
    const both = await configureWebhook(stack, own.test_api_key, 'http://127.0.0.1:9/both', [
      'payment.partially_refunded',
      'payment.released',
    ]);
    const refunds = await configureWebhook(stack, own.test_api_key, 'http://127.0.0.1:9/refunds', ['payment.partially_refunded']);
    const { state, entry, deposit } = split(own.account_id);
    // Deposited first: PostgreSQL refuses to release custody the payment never held (docs/money.md).
    await projectPayment(stack.db, deposit.state, deposit.entry, REASON_KEY);
    const envelopes = transitionEnvelopes(state, entry);
    const plans = await Promise.all(Array.from({ length: 4 }, () => projectAndPlan(stack.db, state, entry, envelopes, REASON_KEY)));
    for (const plan of plans)
      expect(plan.map((p) => [p.delivery.id, p.delivery.event])).toEqual([
        [deliveryId(state.id, 3, both.id, -1), 'payment.partially_refunded'],
        [deliveryId(state.id, 3, refunds.id, -1), 'payment.partially_refunded'],
        [deliveryId(state.id, 3, both.id), 'payment.released'],
      ]);
    expect(JSON.parse(plans[0][0].delivery.body).data).toMatchObject({
      status: 'disputed',
      amount_refunded: 3,
      amount_held: 7,
      amount_released: 0,
    });
    expect(JSON.parse(plans[0][2].delivery.body).data).toMatchObject({
      status: 'released',
      amount_refunded: 3,
      amount_held: 0,
      amount_released: 7,
    });
    const events = await stack.db('events').where({ payment_id: state.id, sequence: 3 }).orderBy('ordinal');
    expect(events.map((e: { type: string; sequence: number; ordinal: number }) => [e.type, e.sequence, e.ordinal])).toEqual([
      ['payment.partially_refunded', 3, -1],
      ['payment.released', 3, 0],
    ]);
    expect(await stack.db('ledger_entries').where({ payment_id: state.id, version: 3 }).count({ n: '*' }).first()).toEqual({ n: '1' });
    expect(await stack.db('webhook_deliveries').where({ payment_id: state.id }).count({ n: '*' }).first()).toEqual({ n: '3' });
  });
});
