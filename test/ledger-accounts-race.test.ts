/**
 * Invariants refused by PostgreSQL at write (docs/money.md, "What PostgreSQL refuses"): two movements
 * racing for the same money — a recipient's available balance, a payment's custody — and exactly one
 * is written; the other fails with a check violation and leaves nothing behind.
 */
import { describe, expect, it } from 'vitest';
import { projectPayment } from '../src/payments/projection.repository';
import { creationEntry } from '../src/payments/payment.rules';
import { recipientAddress } from '../src/ledger/ledger.rules';
import type { HistoryEntry } from '../src/payments/paymentTypes.rules';
import type { PaymentDetails } from '../src/payments/paymentRecord.rules';
import { moveRecipientMoney } from './helpers/ledger';
import { useAccount, useStack, validPayment } from './helpers/stack';
import { depositEntry, samplePaymentDetails } from './helpers/webhooks';

const stack = useStack();
const account = useAccount(stack);
const REASON_KEY = Buffer.alloc(32, 7);

const accountBalance = async (address: string) =>
  (await stack.db('ledger_account_balances').where({ address }).first())?.balance_minor as string | undefined;

describe('two movements for the same money', () => {
  it('of a recipient’s available balance: exactly one is written', async () => {
    const key = account.test_api_key;
    const recipient = (await stack.http.post('/api/v1/recipients', { key, body: { email: 'r@example.com', country: 'NL' } })).body;
    await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } });
    const { recipient_email: _e, ...body } = validPayment({ amount: 50, recipient: recipient.id });
    const payment = (await stack.http.post('/api/v1/payments', { key, body })).body;
    for (const action of ['deposit', 'approve', 'release']) {
      expect((await stack.http.post(`/api/v1/payments/${payment.id}/${action}`, { key, body: {} })).status).toBe(200);
    }
    const available = recipientAddress(recipient.id, 'available');
    expect(await accountBalance(available)).toBe('5000');

    // Two payouts-to-be, each taking all 50.00 available to in_transit, each under its own key.
    const move = (n: number) =>
      ({
        accountId: account.account_id,
        recipientId: recipient.id,
        idempotencyKey: `race|${recipient.id}|${n}`,
        version: 100 + n,
        from: 'available',
        to: 'in_transit',
        minor: 5000n,
      }) as const;
    const take = (n: number) => moveRecipientMoney(stack.db, move(n));
    const results = await Promise.allSettled([take(1), take(2)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected');
    expect((refused!.reason as { code?: string }).code).toBe('23514');
    expect(await accountBalance(available)).toBe('0');
    expect(await accountBalance(recipientAddress(recipient.id, 'in_transit'))).toBe('5000');
    const entries = await stack.db('ledger_entries').where({ recipient_id: recipient.id }).whereIn('version', [101, 102]);
    expect(entries).toHaveLength(1);
    // The same key again writes nothing, and refuses nothing.
    const again = await moveRecipientMoney(stack.db, move(entries[0].version - 100));
    expect(again).toBe(false);
  });

  it('of a payment’s custody: two releases of everything held, exactly one is written', async () => {
    const created = samplePaymentDetails(account.account_id);
    await projectPayment(stack.db, created, creationEntry(created, 'test'), REASON_KEY);
    const at = () => new Date().toISOString();
    const deposited: PaymentDetails = {
      ...created,
      status: 'in_custody',
      version: 2,
      heldMinor: 1000n,
      milestones: created.milestones.map((m) => ({ ...m, status: 'in_custody', heldMinor: 1000n })),
    };
    const move = { deposited: 0n, refunded: 0n, released: 0n, fee: 0n };
    await projectPayment(stack.db, deposited, depositEntry(at()), REASON_KEY);
    // Two histories that each release everything held (as no workflow would): versions 3 and 4.
    const release = (seq: number): [PaymentDetails, HistoryEntry] => [
      {
        ...deposited,
        status: 'released',
        version: seq,
        heldMinor: 0n,
        releasedMinor: 1000n,
        milestones: deposited.milestones.map((m) => ({ ...m, status: 'released', heldMinor: 0n, releasedMinor: 1000n })),
      },
      {
        seq,
        action: 'release',
        from: 'in_custody',
        to: 'released',
        event: 'payment.released',
        actor: 'test',
        reason: null,
        at: at(),
        movement: { ...move, released: 1000n },
      },
    ];
    const results = await Promise.allSettled([3, 4].map((seq) => projectPayment(stack.db, ...release(seq), REASON_KEY)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((r) => r.status === 'rejected')!.reason as { code?: string }).code).toBe('23514');
    expect(await accountBalance(`escrow:${created.id}`)).toBe('0');
    expect(await stack.db('ledger_entries').where({ payment_id: created.id, type: 'release' })).toHaveLength(1);
    // The refused projection wrote nothing else either: one history entry past the deposit.
    expect(await stack.db('payment_events').where({ payment_id: created.id }).where('seq', '>', 2)).toHaveLength(1);
  });
});
