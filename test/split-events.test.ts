/**
 * A split's refunded part reaches refund subscribers (docs/webhooks.md, "A split's two events"):
 * `payment.partially_refunded`, then `payment.released`, same version, to real receivers on loopback.
 */
import { describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { FAST_WEBHOOK_RETRIES, configureWebhook, untilDeliveries } from './helpers/webhooks';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });

describe('resolve with a split', () => {
  it('delivers payment.partially_refunded (the refunded part) before payment.released, to each subscriber as subscribed', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const both = await startReceiver();
    const refunds = await startReceiver();
    const releases = await startReceiver();
    try {
      const bothHook = await configureWebhook(stack, key, both.url, ['payment.partially_refunded', 'payment.released']);
      const refundsHook = await configureWebhook(stack, key, refunds.url, ['payment.partially_refunded', 'payment.refunded']);
      const releasesHook = await configureWebhook(stack, key, releases.url, ['payment.released']);
      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment({ amount: 100, platform_fee: 10 }) });
      expect(p.status).toBe(201);
      const id = p.body.id as string;
      for (const [action, body] of [['deposit'], ['dispute'], ['resolve', { resolution: 'split', refund_amount: 30 }]] as const) {
        const res = await stack.http.post(`/api/v1/payments/${id}/${action}`, { key, body });
        expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
      }

      await eventually(async () =>
        both.received.length >= 2 && refunds.received.length >= 1 && releases.received.length >= 1 ? true : undefined,
      );
      expect(both.received.map((r) => [r.body.event, r.body.sequence])).toEqual([
        ['payment.partially_refunded', 4],
        ['payment.released', 4],
      ]);
      const [refundedPart, released] = both.received.map((r) => r.body);
      // The refunded part as a partial refund shows it: refunded, the rest still held, nothing released yet.
      expect(refundedPart.data).toMatchObject({
        id,
        status: 'disputed',
        amount_refunded: 30,
        amount_held: 70,
        amount_released: 0,
        fee_collected: 0,
      });
      expect(released.data).toMatchObject({
        id,
        status: 'released',
        amount_refunded: 30,
        amount_held: 0,
        amount_released: 70,
        fee_collected: 7,
      });
      expect(refundedPart.timestamp).toBe(released.timestamp);
      expect(new Set(both.received.map((r) => r.headers['x-service-delivery'])).size).toBe(2);

      expect(refunds.received.map((r) => r.raw.toString('utf8'))).toEqual([both.received[0].raw.toString('utf8')]);
      expect(releases.received.map((r) => r.raw.toString('utf8'))).toEqual([both.received[1].raw.toString('utf8')]);

      // The Events API lists both, newest first: the release, then the refunded part (each step of the
      // dispute ends with its payment.dispute_updated, docs/concepts.md "Disputes").
      const events = (await stack.http.get(`/api/v1/events?payment_id=${id}`, { key })).body.data;
      expect(events.map((e: any) => [e.type, e.sequence])).toEqual([
        ['payment.dispute_updated', 4],
        ['payment.released', 4],
        ['payment.partially_refunded', 4],
        ['payment.dispute_updated', 3],
        ['payment.disputed', 3],
        ['payment.deposited', 2],
        ['payment.created', 1],
      ]);
      expect(events[2].data).toEqual(refundedPart.data);
      expect(new Set(events.map((e: any) => e.id)).size).toBe(7);
      // Paging one at a time walks the same order.
      const first = (await stack.http.get(`/api/v1/events?payment_id=${id}&limit=1`, { key })).body.data;
      const second = (await stack.http.get(`/api/v1/events?payment_id=${id}&limit=1&starting_after=${first[0].id}`, { key })).body.data;
      const back = (await stack.http.get(`/api/v1/events?payment_id=${id}&limit=1&ending_before=${second[0].id}`, { key })).body.data;
      expect([first[0].type, second[0].type, back[0].type]).toEqual([
        'payment.dispute_updated',
        'payment.released',
        'payment.dispute_updated',
      ]);

      // Each configuration's delivery log shows what it was sent, succeeded.
      for (const [hook, names] of [
        [bothHook, ['payment.partially_refunded', 'payment.released']],
        [refundsHook, ['payment.partially_refunded']],
        [releasesHook, ['payment.released']],
      ] as const) {
        const log = await untilDeliveries(stack, key, hook.id, (d) =>
          d.length === names.length && d.every((x) => x.status === 'succeeded') ? d : undefined,
        );
        expect(log.map((d) => d.event).sort()).toEqual([...names]);
      }
      // The ledger still has one entry for the split, and the history one step.
      const ledger = (await stack.http.get(`/api/v1/payments/${id}/ledger`, { key })).body.data;
      expect(ledger.map((e: any) => e.type)).toEqual(['deposit', 'split']);
    } finally {
      await both.close();
      await refunds.close();
      await releases.close();
    }
  });
});
