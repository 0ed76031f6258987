/** The delivery log's view of a delivery (src/webhooks/delivery.view.ts) and a webhook's body (src/webhooks/webhookEnvelope.view.ts). */
import { describe, expect, it } from 'vitest';
import { deliveryView } from '../../src/webhooks/delivery.view';
import { envelope } from '../../src/webhooks/webhookEnvelope.view';
import { samplePayment } from '../../src/payments/payment.view';

describe('deliveryView', () => {
  it('shows a delivery, its next attempt and every attempt, times in ISO 8601', () => {
    const created = new Date('2026-11-27T10:00:00.000Z');
    const view = deliveryView(
      { id: 'dlv_1', event: 'payment.created', payment_id: 'pay_1', status: 'pending', created_at: created },
      [
        {
          attempt: 1,
          at: new Date('2026-11-27T10:00:01.000Z'),
          status_code: 503,
          duration_ms: 12,
          error: 'receiver answered HTTP 503',
          response_excerpt: 'busy',
        },
        {
          attempt: 2,
          at: new Date('2026-11-27T10:01:01.000Z'),
          status_code: null,
          duration_ms: 1000,
          error: 'no answer within 1000 ms',
          response_excerpt: null,
        },
      ],
      new Date('2026-11-27T10:06:01.000Z'),
    );
    expect(view).toEqual({
      id: 'dlv_1',
      event: 'payment.created',
      payment_id: 'pay_1',
      status: 'pending',
      created_at: '2026-11-27T10:00:00.000Z',
      next_attempt_at: '2026-11-27T10:06:01.000Z',
      attempts: [
        {
          attempt: 1,
          at: '2026-11-27T10:00:01.000Z',
          status_code: 503,
          duration_ms: 12,
          error: 'receiver answered HTTP 503',
          response_excerpt: 'busy',
        },
        {
          attempt: 2,
          at: '2026-11-27T10:01:01.000Z',
          status_code: null,
          duration_ms: 1000,
          error: 'no answer within 1000 ms',
          response_excerpt: null,
        },
      ],
    });
    const ended = deliveryView(
      { id: 'dlv_2', event: 'payment.test', payment_id: null, status: 'succeeded', created_at: created },
      [],
      null,
    );
    expect([ended.next_attempt_at, ended.attempts, ended.payment_id]).toEqual([null, [], null]);
  });
});

describe('envelope', () => {
  it('names the event, the payment, the time and the version, in the body’s key order; a milestone only when given', () => {
    const data = samplePayment(false, '2026-11-27T10:00:00.000Z');
    const body = envelope('payment.test', '2026-11-27T10:00:00.000Z', data, 0);
    expect(Object.keys(body)).toEqual(['event', 'payment_id', 'timestamp', 'sequence', 'data']);
    expect(body).toEqual({ event: 'payment.test', payment_id: data.id, timestamp: '2026-11-27T10:00:00.000Z', sequence: 0, data });
    const milestone = { id: 'ms_1' } as never;
    const withMilestone = envelope('payment.milestone_released', '2026-11-27T10:00:00.000Z', data, 4, milestone);
    expect(Object.keys(withMilestone)).toEqual(['event', 'payment_id', 'timestamp', 'sequence', 'milestone', 'data']);
    expect(withMilestone.milestone).toBe(milestone);
  });
});
