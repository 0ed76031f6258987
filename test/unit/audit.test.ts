/** The custody trail's leaves (docs/audit.md): their natural keys and their exact canonical JSON, with no personal data. */
import { describe, expect, it } from 'vitest';
import { AUDIT_LEAF_KINDS, ledgerEntryLeaf, transitionLeaf, webhookAttemptLeaf } from '../../src/audit/trailLeaves.rules';
import { paymentState } from './fixtures';

describe('audit leaves', () => {
  it('are of three kinds', () => {
    expect(AUDIT_LEAF_KINDS).toEqual(['payment.transition', 'webhook.attempt', 'ledger.entry']);
  });

  it('a transition: the version, the step and the money, never an email address or metadata', () => {
    const state = paymentState({ status: 'in_custody', version: 2, livemode: true });
    const leaf = transitionLeaf(state, {
      seq: 2,
      action: 'deposit',
      from: 'pending_deposit',
      to: 'in_custody',
      event: 'payment.deposited',
      actor: 'key_1',
      reason: null,
      at: '2026-11-24T08:00:00.000Z',
    });
    expect(leaf).toStrictEqual({
      entryKey: 'transition:pay_01JD0000000000000000000000:2',
      kind: 'payment.transition',
      paymentId: 'pay_01JD0000000000000000000000',
      accountId: 'acct_1',
      livemode: true,
      leaf:
        '{"account_id":"acct_1","action":"deposit","actor":"key_1","amount_exponent":2,"amount_minor":12550,"at":"2026-11-24T08:00:00.000Z",' +
        '"currency":"USD","event":"payment.deposited","from":"pending_deposit","kind":"payment.transition","livemode":true,' +
        '"payment_id":"pay_01JD0000000000000000000000","reason":null,"to":"in_custody","version":2}',
    });
    expect(leaf.leaf).not.toContain('@');
    expect(transitionLeaf(paymentState({ currency: 'HUF', amountExponent: 0 }), { seq: 1 } as never).leaf).toContain('"amount_exponent":0');
  });

  it('a webhook attempt: its outcome, not the receiver’s answer', () => {
    const leaf = webhookAttemptLeaf({
      deliveryId: 'dlv_1',
      webhookId: 'wh_1',
      paymentId: null,
      accountId: 'acct_1',
      livemode: false,
      event: 'payment.test',
      attempt: 3,
      at: new Date('2026-11-24T08:00:00.000Z'),
      statusCode: 503,
      durationMs: 12,
      error: 'receiver answered HTTP 503',
      outcome: 'pending',
    });
    expect(leaf).toStrictEqual({
      entryKey: 'webhook_attempt:dlv_1:3',
      kind: 'webhook.attempt',
      paymentId: null,
      accountId: 'acct_1',
      livemode: false,
      leaf:
        '{"account_id":"acct_1","at":"2026-11-24T08:00:00.000Z","attempt":3,"delivery_id":"dlv_1","duration_ms":12,' +
        '"error":"receiver answered HTTP 503","event":"payment.test","kind":"webhook.attempt","livemode":false,"outcome":"pending",' +
        '"payment_id":null,"status_code":503,"webhook_id":"wh_1"}',
    });
  });

  it('a ledger entry with its postings, in minor units', () => {
    const leaf = ledgerEntryLeaf({
      entryId: 'le_1',
      paymentId: 'pay_1',
      accountId: 'acct_1',
      livemode: true,
      version: 2,
      type: 'deposit',
      currency: 'USD',
      exponent: 2,
      at: '2026-11-24T08:00:00.000Z',
      postings: [
        { account: 'payer_deposits', amount: -12_550n },
        { account: 'custody', amount: 12_550n },
      ],
    });
    expect(leaf).toStrictEqual({
      entryKey: 'ledger:le_1',
      kind: 'ledger.entry',
      paymentId: 'pay_1',
      accountId: 'acct_1',
      livemode: true,
      leaf:
        '{"account_id":"acct_1","amount_exponent":2,"at":"2026-11-24T08:00:00.000Z","currency":"USD","entry_id":"le_1","kind":"ledger.entry",' +
        '"livemode":true,"payment_id":"pay_1","postings":[{"amount_minor":-12550,"ledger_account":"payer_deposits"},' +
        '{"amount_minor":12550,"ledger_account":"custody"}],"type":"deposit","version":2}',
    });
  });
});
