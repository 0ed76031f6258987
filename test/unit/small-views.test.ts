/** Views with one job each: an API key, a webhook configuration, and a payout's lines in the Temporal UI. */
import { describe, expect, it } from 'vitest';
import { apiKeyView } from '../../src/tenants/apiKey.view';
import { webhookListItemView, webhookSecretView, webhookView } from '../../src/webhooks/webhookConfiguration.view';
import { type PayoutStoryState, payoutDetails, payoutStepSummary, payoutSummary } from '../../src/payouts/payoutSummary.rules';

const at = new Date('2026-11-27T10:00:00.000Z');

describe('apiKeyView', () => {
  it('shows the mode and the last four characters, never the key', () => {
    expect(apiKeyView({ id: 'key_1', livemode: true, last4: 'abcd', created_at: at })).toEqual({
      id: 'key_1',
      object: 'api_key',
      mode: 'live',
      last4: 'abcd',
      created_at: '2026-11-27T10:00:00.000Z',
    });
    expect(apiKeyView({ id: 'key_2', livemode: false, last4: 'wxyz', created_at: at }).mode).toBe('test');
  });
});

describe('webhookView', () => {
  const w = {
    id: 'wh_1',
    url: 'https://example.com/h',
    events: ['payment.created'],
    active: false,
    disabled_reason: 'backlog',
    livemode: true,
    created_at: at,
  };
  it('the configuration, its secret once, and the list item with its mode and creation time', () => {
    expect(webhookView(w)).toEqual({
      id: 'wh_1',
      url: 'https://example.com/h',
      events: ['payment.created'],
      active: false,
      disabled_reason: 'backlog',
    });
    expect(webhookSecretView({ ...w, secret: 'whsec_x' })).toEqual({
      id: 'wh_1',
      url: 'https://example.com/h',
      events: ['payment.created'],
      active: false,
      secret: 'whsec_x',
    });
    expect(webhookListItemView(w)).toEqual({ ...webhookView(w), livemode: true, created_at: '2026-11-27T10:00:00.000Z' });
  });
});

describe('payout story', () => {
  const p: PayoutStoryState = {
    amountMinor: 12345n,
    amountExponent: 2,
    currency: 'EUR',
    status: 'pending',
    bankAccountId: 'ba_1',
    last4: '0000',
    failureCode: null,
  };
  it('names the amount and where it goes, never the number', () => {
    expect(payoutSummary(p)).toBe('123.45 EUR to ba_1 (…0000)');
  });
  it('names each step, the status it led to, a failure’s code and the money it moved', () => {
    expect(payoutStepSummary(p, 'send')).toBe('send → in_transit');
    expect(payoutStepSummary({ ...p, failureCode: 'no_account' }, 'fail')).toMatch(
      /^fail → failed \(no_account\) — 123\.45 EUR \S+ → \S+$/,
    );
    expect(payoutStepSummary(p, 'fail')).toMatch(/^fail → failed — /);
    expect(payoutStepSummary({ ...p, failureCode: 'account_closed' }, 'return')).toMatch(/^return → returned \(account_closed\) — /);
    expect(payoutStepSummary({ ...p, failureCode: 'account_closed' }, 'pay')).not.toContain('account_closed');
    expect(payoutStepSummary(p, 'create')).toMatch(/^create → pending — 123\.45 EUR \S+ → \S+$/);
    expect(() => payoutStepSummary(p, 'nope' as never)).toThrow('no payout step nope');
  });
  it('says where the money is for every status', () => {
    const where = (status: PayoutStoryState['status'], failureCode: PayoutStoryState['failureCode'] = null) =>
      payoutDetails({ ...p, status, failureCode });
    expect(where('pending')).toBe('**pending** — 123.45 EUR to ba_1 (…0000)\n\nmoney: in_transit, waiting for its file');
    expect(where('in_transit')).toBe('**in_transit** — 123.45 EUR to ba_1 (…0000)\n\nmoney: in_transit, at the bank');
    expect(where('paid')).toBe('**paid** — 123.45 EUR to ba_1 (…0000)\n\nmoney: paid_out');
    expect(where('failed', 'no_account')).toBe('**failed** · no_account — 123.45 EUR to ba_1 (…0000)\n\nmoney: back on available');
    expect(where('canceled')).toBe('**canceled** — 123.45 EUR to ba_1 (…0000)\n\nmoney: back on available');
    expect(where('returned', 'account_closed')).toBe(
      '**returned** · account_closed — 123.45 EUR to ba_1 (…0000)\n\nmoney: back on available',
    );
  });
});
