/**
 * A configuration and one delivery readable by id, the log filtered by payment
 * and readable after the configuration's deletion, and recover reaching deliveries that are still
 * being retried after a failure.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startDownReceiver, startReceiver } from './helpers/receiver';
import { accountWithWebhook, configureWebhook } from './helpers/webhooks';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack({ env: { WEBHOOK_RETRY_INITIAL_INTERVAL: '1h', WEBHOOK_MAX_ATTEMPTS: '5', WEBHOOK_TIMEOUT: '2s' } });
beforeAll(async () => {
  // Retries an hour apart: a failed first attempt leaves the delivery pending for the whole test.
});

describe('reading a configuration and its deliveries', () => {
  it('GET /webhooks/:id, one delivery by id, the log by payment_id, and the log after the configuration is deleted', async () => {
    const receiver = await startReceiver();
    try {
      const acct = await stack.newAccount();
      const other = await stack.newAccount();
      const key = acct.test_api_key;
      const hook = await configureWebhook(stack, key, receiver.url);

      const got = await stack.http.get(`/api/v1/webhooks/${hook.id}`, { key });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: hook.id, url: receiver.url, active: true, disabled_reason: null, livemode: false });
      expect(got.body).not.toHaveProperty('secret');
      expect((await stack.http.get(`/api/v1/webhooks/${hook.id}`, { key: other.test_api_key })).status).toBe(404);
      expect((await stack.http.get(`/api/v1/webhooks/${hook.id}`, { key: acct.live_api_key })).status).toBe(404);

      const p1 = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
      const p2 = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
      await stack.http.post(`/api/v1/payments/${p1}/deposit`, { key });
      const log = `/api/v1/webhooks/${hook.id}/deliveries`;
      await eventually(async () => ((await stack.http.get(`${log}?status=succeeded`, { key })).body.data.length === 3 ? true : undefined));

      const mine = (await stack.http.get(`${log}?payment_id=${p1}`, { key })).body.data;
      expect(mine.map((d: { event: string }) => d.event).sort()).toEqual(['payment.created', 'payment.deposited']);
      expect(mine.every((d: { payment_id: string }) => d.payment_id === p1)).toBe(true);
      expect((await stack.http.get(`${log}?payment_id=${p2}`, { key })).body.data).toHaveLength(1);
      const bad = await stack.http.get(`${log}?payment_id=nope`, { key });
      expect([bad.status, bad.body.error.details[0].field]).toEqual([400, 'payment_id']);

      const one = await stack.http.get(`${log}/${mine[0].id}`, { key });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(mine[0]);
      expect((await stack.http.get(`${log}/dlv_${'Z'.repeat(26)}`, { key })).status).toBe(404);
      expect((await stack.http.get(`${log}/${mine[0].id}`, { key: other.test_api_key })).status).toBe(404);

      // Deleted: the configuration is gone, its log is not.
      expect((await stack.http.delete(`/api/v1/webhooks/${hook.id}`, { key })).status).toBe(200);
      expect((await stack.http.get(`/api/v1/webhooks/${hook.id}`, { key })).status).toBe(404);
      const after = await stack.http.get(log, { key });
      expect(after.status).toBe(200);
      expect(after.body.data).toHaveLength(3);
      expect((await stack.http.get(`${log}/${mine[0].id}`, { key })).body).toEqual(mine[0]);
      expect((await stack.http.get(log, { key: other.test_api_key })).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});

describe('recover and retry now', () => {
  it('recover leaves a delivery still being retried to its series; a resend runs its next attempt now, numbered after the last', async () => {
    const receiver = await startDownReceiver();
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      const since = new Date().toISOString();
      await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      const log = `/api/v1/webhooks/${hook.id}/deliveries`;
      const pending = await eventually(async () => {
        const d = (await stack.http.get(log, { key })).body.data[0];
        return d?.attempts.length === 1 ? d : undefined;
      });
      // Failed once, next retry an hour away: its series waits between attempts.
      expect(pending.status).toBe('pending');
      expect(Date.parse(pending.next_attempt_at) - Date.now()).toBeGreaterThan(30 * 60_000);

      receiver.comeBack();
      const recovered = await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
      expect(recovered.status).toBe(202);
      // Nothing queued, and the answer says the one delivery still pending is its series' (pending: 1).
      expect(recovered.body).toMatchObject({ success: true, delivery_ids: [], queued: 0, has_more: false, pending: 1 });
      expect(recovered.body.message).toContain('1 delivery since then is still pending');

      const resend = await stack.http.post(`${log}/${pending.id}/resend`, { key });
      expect(resend.status).toBe(202);
      expect(resend.body).toEqual({ success: true, delivery_id: pending.id, attempt: 2 });
      const done = await eventually(async () => {
        const d = (await stack.http.get(`${log}/${pending.id}`, { key })).body;
        return d.status === 'succeeded' ? d : undefined;
      });
      // The same series in the same run of the workflow named by the delivery (no second one started), the same webhook-id, attempt 2 in the log.
      expect(done.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 503],
        [2, 200],
      ]);
      expect(receiver.received.filter((r) => r.headers['webhook-id'] === pending.id)).toHaveLength(2);
      const runs = [];
      for await (const w of stack.client.workflow.list({ query: `WorkflowId = "${pending.id}"` })) runs.push(w);
      expect(runs).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('while an attempt is in flight a resend is 409 delivery_in_progress naming the series', async () => {
    const receiver = await startReceiver(() => 'hang');
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      await eventually(async () => (receiver.received.length === 1 ? true : undefined));
      const log = `/api/v1/webhooks/${hook.id}/deliveries`;
      const [delivery] = await eventually(async () => {
        const data = (await stack.http.get(log, { key })).body.data;
        return data.length === 1 ? data : undefined;
      });
      const resend = await stack.http.post(`${log}/${delivery.id}/resend`, { key });
      expect(resend.status).toBe(409);
      expect(resend.body.error).toMatchObject({ code: 'delivery_in_progress', details: { delivery_id: delivery.id, series: 'original' } });
      // Refused, and nothing more sent: the attempt in flight is the only one.
      expect(receiver.received).toHaveLength(1);
      receiver.release();
    } finally {
      await receiver.close();
    }
  });
});
