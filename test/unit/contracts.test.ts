/**
 * Names other systems rely on: the search attributes operators query in the Temporal UI (name and
 * type), the state diagram in docs/concepts.md, and the scope a principal's data is kept under.
 */
import { SearchAttributeType } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  AccountIdKey,
  LivemodeKey,
  NextDeadlineKey,
  RecordKindKey,
  PaymentAmountKey,
  PaymentCurrencyKey,
  PaymentStatusKey,
  PAYMENT_COLUMNS,
  SEARCH_ATTRIBUTE_TYPES,
  paymentsListUrl,
  paymentsQuery,
} from '../../src/platform/searchAttributes.rules';
import { stateMachineMermaid } from '../../src/payments/stateMachineDiagram.rules';
import { scopeOf } from '../../src/tenants/tenancy.rules';

describe('search attributes', () => {
  it('the UI link to the payments list: the namespace and the RecordKind query, encoded', () => {
    expect(paymentsListUrl('http://127.0.0.1:8233', 'default')).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows?query=RecordKind%3D%22payment%22',
    );
    expect(paymentsListUrl('https://ui.example', 'a b')).toBe(
      'https://ui.example/namespaces/a%20b/workflows?query=RecordKind%3D%22payment%22',
    );
  });

  it('the links per mode: test and live payments apart; the columns an operator adds are search attributes this service sets', () => {
    expect([paymentsQuery(), paymentsQuery(false), paymentsQuery(true)]).toEqual([
      'RecordKind="payment"',
      'RecordKind="payment" AND Livemode=false',
      'RecordKind="payment" AND Livemode=true',
    ]);
    expect(paymentsListUrl('http://127.0.0.1:8233', 'default', false)).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows?query=RecordKind%3D%22payment%22%20AND%20Livemode%3Dfalse',
    );
    expect(paymentsListUrl('http://127.0.0.1:8233', 'default', true)).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows?query=RecordKind%3D%22payment%22%20AND%20Livemode%3Dtrue',
    );
    expect(PAYMENT_COLUMNS).toEqual(['PaymentStatus', 'PaymentAmount', 'PaymentCurrency', 'Livemode', 'NextDeadline']);
    for (const name of PAYMENT_COLUMNS) expect(SEARCH_ATTRIBUTE_TYPES).toHaveProperty(name);
  });

  it('have the exact names and types saved searches use', () => {
    expect([PaymentStatusKey, PaymentAmountKey, PaymentCurrencyKey, AccountIdKey, LivemodeKey, NextDeadlineKey, RecordKindKey]).toEqual([
      { name: 'PaymentStatus', type: SearchAttributeType.KEYWORD },
      { name: 'PaymentAmount', type: SearchAttributeType.DOUBLE },
      { name: 'PaymentCurrency', type: SearchAttributeType.KEYWORD },
      { name: 'AccountId', type: SearchAttributeType.KEYWORD },
      { name: 'Livemode', type: SearchAttributeType.BOOL },
      { name: 'NextDeadline', type: SearchAttributeType.DATETIME },
      { name: 'RecordKind', type: SearchAttributeType.KEYWORD },
    ]);
  });

  it('are registered with the dev server under the same names, typed as the CLI spells them', () => {
    expect(SEARCH_ATTRIBUTE_TYPES).toStrictEqual({
      PaymentStatus: 'Keyword',
      PaymentAmount: 'Double',
      PaymentCurrency: 'Keyword',
      AccountId: 'Keyword',
      Livemode: 'Bool',
      NextDeadline: 'Datetime',
      RecordKind: 'Keyword',
    });
  });
});

describe('stateMachineMermaid', () => {
  it('draws every row of the table, the timers and resolutions labelled', () => {
    expect(stateMachineMermaid()).toBe(
      [
        'stateDiagram-v2',
        '  [*] --> pending_deposit: create',
        '  pending_deposit --> in_custody: deposit',
        '  in_custody --> pending_release: approve',
        '  pending_release --> released: release',
        '  pending_deposit --> cancelled: cancel',
        '  in_custody --> refunded: refund',
        '  pending_release --> refunded: refund',
        '  disputed --> refunded: refund',
        '  in_custody --> in_custody: refund (part of what is held)',
        '  pending_release --> pending_release: refund (part of what is held)',
        '  disputed --> disputed: refund (part of what is held)',
        '  in_custody --> disputed: dispute',
        '  pending_release --> disputed: dispute',
        '  disputed --> released: resolve (release)',
        '  disputed --> refunded: resolve (refund)',
        '  disputed --> released: resolve (split)',
        '  pending_deposit --> cancelled: deposit deadline (timer)',
        '  pending_release --> released: auto-release (timer)',
        '  disputed --> released: offer accepted (release)',
        '  disputed --> refunded: offer accepted (refund)',
        '  disputed --> released: offer accepted (split)',
        '  disputed --> released: respond_by passed (timer, release)',
        '  disputed --> refunded: respond_by passed (timer, refund)',
        '  disputed --> in_custody: dispute withdrawn (back where it was)',
        '  disputed --> pending_release: dispute withdrawn (back where it was)',
        '  released --> [*]',
        '  cancelled --> [*]',
        '  refunded --> [*]',
      ].join('\n'),
    );
  });
});

describe('scopeOf', () => {
  it('keeps the account and the mode, nothing else', () => {
    expect(scopeOf({ accountId: 'acct_1', livemode: true, actor: 'key_1', credential: 'c' } as never)).toStrictEqual({
      accountId: 'acct_1',
      livemode: true,
    });
  });
});
