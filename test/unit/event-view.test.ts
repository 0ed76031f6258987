/** An event as the Events API shows it (src/webhooks/event.view.ts): the payment right after it and, for a milestone event, that milestone. */
import { describe, expect, it } from 'vitest';
import { eventView } from '../../src/webhooks/event.view';
import type { PaymentView } from '../../src/payments/payment.view';

const at = new Date('2026-11-27T10:00:00.000Z');
const data = {
  id: 'pay_1',
  milestones: [
    { id: 'ms_1', amount: 3 },
    { id: 'ms_2', amount: 7 },
  ],
} as unknown as PaymentView;

describe('eventView', () => {
  it('shows a payment event with its id, type, payment, sequence and time, and no milestone', () => {
    const view = eventView({
      id: 'evt_1',
      payment_id: 'pay_1',
      type: 'payment.created',
      sequence: 1,
      data,
      created_at: at,
      milestone_id: null,
    });
    expect(view).toEqual({
      id: 'evt_1',
      object: 'event',
      type: 'payment.created',
      payment_id: 'pay_1',
      sequence: 1,
      created_at: '2026-11-27T10:00:00.000Z',
      data,
    });
    expect(Object.keys(view)).toEqual(['id', 'object', 'type', 'payment_id', 'sequence', 'created_at', 'data']);
  });

  it("shows a milestone event's milestone, found in the payment, before the payment", () => {
    const view = eventView({
      id: 'evt_2',
      payment_id: 'pay_1',
      type: 'payment.milestone_released',
      sequence: 4,
      data,
      created_at: at,
      milestone_id: 'ms_2',
    });
    expect(view.milestone).toEqual({ id: 'ms_2', amount: 7 });
    expect(Object.keys(view)).toEqual(['id', 'object', 'type', 'payment_id', 'sequence', 'created_at', 'milestone', 'data']);
  });

  it("shows a bank credit's event with the credit's id and no payment", () => {
    const view = eventView({
      id: 'evt_3',
      payment_id: null,
      bank_credit_id: 'bc_1',
      type: 'bank_credit.received',
      sequence: 1,
      data,
      created_at: at,
      milestone_id: null,
    });
    expect(Object.keys(view)).toEqual(['id', 'object', 'type', 'bank_credit_id', 'sequence', 'created_at', 'data']);
    expect(view).toMatchObject({ bank_credit_id: 'bc_1', type: 'bank_credit.received' });
  });
});
