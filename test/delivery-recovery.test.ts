/**
 * Recovery after a receiver was down for every attempt: resend one delivery, recover every failed
 * one since a time, each a new series with the same webhook-id; a configuration failing for the
 * whole WEBHOOK_DISABLE_AFTER window is disabled.
 */
import { Client, Connection } from '@temporalio/client';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { startApiServer } from '../src/platform/http/server';
import { createLogger } from '../src/platform/lib/logger';
import { createServices } from '../src/platform/services';
import { samplePayment } from '../src/payments/payment.view';
import { envelope } from '../src/webhooks/webhookEnvelope.view';
import { startDownReceiver, startReceiver } from './helpers/receiver';
import { accountWithWebhook, untilDisabled } from './helpers/webhooks';
import { type Stack, eventually, httpClient, useStack, validPayment } from './helpers/stack';
import { dataConverter } from '../src/platform/worker/dataConverter';
import { claimSeries } from '../src/webhooks/webhookDeliveries.repository';

const FAST = {
  WEBHOOK_RETRY_INITIAL_INTERVAL: '100ms',
  WEBHOOK_RETRY_BACKOFF: '1',
  WEBHOOK_RETRY_MAX_INTERVAL: '100ms',
  WEBHOOK_MAX_ATTEMPTS: '2',
  WEBHOOK_TIMEOUT: '1s',
};

/** A payment created for an account whose one configuration points at `url`, once its one delivery has failed. */
async function oneFailedDelivery(stack: Stack, url: string) {
  const { key, hook } = await accountWithWebhook(stack, url);
  await stack.http.post('/api/v1/payments', { key, body: validPayment() });
  const [failed] = await eventually(
    async () => {
      const list = (await stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries?status=failed`, { key })).body.data;
      return list.length === 1 ? list : undefined;
    },
    20_000,
    'the delivery to fail',
  );
  return { key, hook, failed };
}

/** A payment created and deposited for an account whose one configuration points at `url`, once both its deliveries have failed. */
async function twoFailedDeliveries(stack: Stack, url: string) {
  const { key, hook } = await accountWithWebhook(stack, url);
  const since = new Date().toISOString();
  const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
  await stack.http.post(`/api/v1/payments/${p.body.id}/deposit`, { key });
  const failed = await eventually(
    async () => {
      const list = (await stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries?status=failed`, { key })).body.data;
      return list.length === 2 ? list : undefined;
    },
    20_000,
    'both deliveries to fail',
  );
  return { key, hook, since, failed };
}

describe('resend and recover', () => {
  const stack = useStack({ env: FAST });

  it('after a receiver was down for every attempt, resend and recover deliver with the same webhook-id', async () => {
    const receiver = await startDownReceiver();
    try {
      const { key, hook, since, failed } = await twoFailedDeliveries(stack, receiver.url);
      const down = receiver.received.length;
      expect(down).toBe(4); // two attempts each
      receiver.comeBack();

      const [created, deposited] = [...failed].sort((a: { event: string }, b: { event: string }) => a.event.localeCompare(b.event));
      const one = await stack.http.post(`/api/v1/webhooks/${hook.id}/deliveries/${created.id}/resend`, { key });
      expect([one.status, one.body.delivery_id]).toEqual([202, created.id]);
      const resent = await eventually(
        async () => receiver.received.slice(down).find((r) => r.headers['webhook-id'] === created.id),
        20_000,
        'the resend',
      );
      expect(resent.body.event).toBe('payment.created');
      // The receiver has it; recover sees it delivered once its attempt is recorded.
      await eventually(
        async () => {
          const list = (await stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries?status=succeeded`, { key })).body.data;
          return list.some((d: { id: string }) => d.id === created.id) ? true : undefined;
        },
        20_000,
        'the resend to be recorded',
      );

      const all = await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
      expect(all.status).toBe(202);
      expect(all.body.delivery_ids).toEqual([deposited.id]); // the created one succeeded already
      await eventually(
        async () => receiver.received.slice(down).find((r) => r.headers['webhook-id'] === deposited.id),
        20_000,
        'the recovery',
      );
      const log = await eventually(
        async () => {
          const list = (await stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries`, { key })).body.data;
          return list.every((d: { status: string }) => d.status === 'succeeded') ? list : undefined;
        },
        20_000,
        'every delivery to succeed',
      );
      const again = log.find((d: { id: string }) => d.id === created.id);
      expect(again.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 503],
        [2, 503],
        [3, 200],
      ]);
      expect((await stack.http.post(`/api/v1/webhooks/${hook.id}/deliveries/dlv_nope/resend`, { key })).status).toBe(404);
      expect((await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since: 'yesterday' } })).status).toBe(400);
    } finally {
      await receiver.close();
    }
  });
});

describe('WEBHOOK_DISABLE_AFTER', () => {
  const stack = useStack({ env: { ...FAST, WEBHOOK_MAX_ATTEMPTS: '20', WEBHOOK_DISABLE_AFTER: '1s' } });

  it('a configuration whose every delivery failed for the whole window is disabled, and attempts stop', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const acct = await stack.newAccount();
      const key = acct.test_api_key;
      await stack.http.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url } });
      await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      const disabled = await untilDisabled(stack, key);
      expect(disabled.disabled_reason).toContain('every delivery failed');
      const count = receiver.received.length;
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received.length).toBe(count);
    } finally {
      await receiver.close();
    }
  });
});

describe('one running series per delivery', () => {
  const stack = useStack({ env: { ...FAST, WEBHOOK_MAX_ATTEMPTS: '3', RECOVER_MAX_DELIVERIES: '1' } });

  it('recover queues at most RECOVER_MAX_DELIVERIES per call and says whether more remain', async () => {
    const receiver = await startDownReceiver();
    try {
      const { key, hook, since } = await twoFailedDeliveries(stack, receiver.url);
      const first = await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
      expect([first.status, first.body.queued, first.body.has_more, first.body.delivery_ids.length]).toEqual([202, 1, true, 1]);
      const second = await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
      expect([second.status, second.body.queued, second.body.has_more]).toEqual([202, 1, false]);
      expect(second.body.delivery_ids).not.toEqual(first.body.delivery_ids);
    } finally {
      await receiver.close();
    }
  });

  it('three resends at once: one series runs, the others are refused naming it; every POST is in the log and the trail', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const { key, hook, failed } = await oneFailedDelivery(stack, receiver.url);
      const resend = () => stack.http.post(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/resend`, { key });
      const answers = await Promise.all([resend(), resend(), resend()]);
      // The one series ends: 3 attempts before it, 3 in it.
      const log = await eventually(
        async () => {
          const d = (await stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}`, { key })).body;
          return d.status === 'failed' && d.attempts.length >= 6 ? d : undefined;
        },
        20_000,
        'the resent series to end',
      );
      await new Promise((r) => setTimeout(r, 500)); // any straggling attempt of a second series would land here
      const posts = receiver.received.filter((r) => r.headers['webhook-id'] === failed.id).length;
      const logged = (await stack.http.get(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}`, { key })).body.attempts;
      const leaves = await stack
        .db('audit_leaves')
        .where('entry_key', 'like', `webhook_attempt:${failed.id}:%`)
        .count<{ n: string }[]>('* as n');
      // Every POST that reached the receiver is one attempt in the log and one leaf in the trail.
      expect(logged.map((a: { attempt: number }) => a.attempt)).toEqual(Array.from({ length: posts }, (_, i) => i + 1));
      expect(Number(leaves[0].n)).toBe(posts);
      expect(posts).toBe(6);
      expect(log.attempts.length).toBe(posts);
      const started = answers.filter((a) => a.status === 202);
      const refused = answers.filter((a) => a.status === 409);
      expect([started.length, refused.length]).toEqual([1, 2]);
      for (const r of refused) {
        expect(r.body.error.code).toBe('delivery_in_progress');
        expect(r.body.error.message).toContain('resend_');
      }
    } finally {
      await receiver.close();
    }
  });

  it("a resend claimed a moment ago, its workflow not started yet, is the running series for the next resend, though the delivery's last run has closed", async () => {
    // The interleaving "three resends at once" can hit under load, made deterministic: the first
    // resend has claimed its series in the log and not yet started its run; the second finds the
    // delivery's previous run closed.
    const receiver = await startReceiver(() => 500);
    try {
      const { key, hook, failed } = await oneFailedDelivery(stack, receiver.url);
      const claimed = `resend_${failed.id}_${ulid()}`;
      expect(await claimSeries(stack.db, failed.id, claimed)).toEqual({ previous: 'failed' });
      const answer = await stack.http.post(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/resend`, { key });
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('delivery_in_progress');
      expect(answer.body.error.message).toContain(claimed);
      expect((await stack.db('webhook_deliveries').where({ id: failed.id }).first('series')).series).toBe(claimed);
    } finally {
      await receiver.close();
    }
  });

  it('a resend or recover whose workflow could not start leaves the delivery failed and free, for the next resend and recover', async () => {
    const receiver = await startReceiver(() => 200);
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 200 });
    const deps = {
      db: stack.db,
      temporal: new Client({ connection, dataConverter }),
      config: stack.config,
      logger: createLogger('silent'),
    };
    const down = await startApiServer({ services: createServices(deps), config: stack.config, logger: deps.logger }, 0);
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      const since = new Date(Date.now() - 1000).toISOString();
      const [one, two] = [await failedDelivery(stack, hook.id), await failedDelivery(stack, hook.id)];
      const offline = httpClient(down.url);
      // A test event whose workflow could not start leaves nothing in the log to block or resend.
      expect((await offline.post(`/api/v1/webhooks/${hook.id}/test`, { key })).status).toBe(503);
      expect(await stack.db('webhook_deliveries').where({ webhook_id: hook.id }).orderBy('id').pluck('id')).toEqual([one, two].sort());
      const refused = await offline.post(`/api/v1/webhooks/${hook.id}/deliveries/${one}/resend`, { key });
      expect([refused.status, refused.body.error.code]).toEqual([503, 'service_unavailable']);
      const recoverRefused = await offline.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
      expect(recoverRefused.status).toBe(503);
      const rows = await stack.db('webhook_deliveries').whereIn('id', [one, two]).orderBy('id').select('id', 'status', 'series');
      expect(rows).toEqual([one, two].sort().map((id) => ({ id, status: 'failed', series: null })));

      const resent = await stack.http.post(`/api/v1/webhooks/${hook.id}/deliveries/${one}/resend`, { key });
      expect(resent.status).toBe(202);
      const recovered = await stack.http.post(`/api/v1/webhooks/${hook.id}/recover`, { key, body: { since } });
      expect([recovered.status, recovered.body.delivery_ids]).toEqual([202, [two]]);
      await eventually(
        async () => {
          const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
          return ids.has(one) && ids.has(two) ? true : undefined;
        },
        20_000,
        'both deliveries',
      );
    } finally {
      await down.close();
      await connection.close();
      await receiver.close();
    }
    // Each call to the unreachable Temporal ends at its deadline (TEMPORAL_CALL_TIMEOUT_MS).
  }, 180_000);

  it('a resend takes over a series whose workflow never started (once its start would have ended) or is no longer running', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const { key, hook } = await accountWithWebhook(stack, receiver.url);
      const resend = (id: string) => stack.http.post(`/api/v1/webhooks/${hook.id}/deliveries/${id}/resend`, { key });

      // Claimed an hour ago, its workflow never started (the claimant died before starting it).
      const orphaned = await failedDelivery(stack, hook.id);
      await stack
        .db('webhook_deliveries')
        .where({ id: orphaned })
        .update({ series: `resend_${orphaned}_${ulid()}`, status: 'pending', updated_at: new Date(Date.now() - 3600_000) });
      expect((await resend(orphaned)).status).toBe(202);

      // Claimed just now: its claimant's start may still be under way, so it is left to it.
      const claimed = await failedDelivery(stack, hook.id);
      const inFlight = `resend_${claimed}_${ulid()}`;
      await stack.db('webhook_deliveries').where({ id: claimed }).update({ series: inFlight, status: 'pending', updated_at: new Date() });
      const busy = await resend(claimed);
      expect([busy.status, busy.body.error.code]).toEqual([409, 'delivery_in_progress']);
      expect(busy.body.error.message).toContain(inFlight);

      // Claimed, its workflow started (on a queue no worker polls) then terminated: its series never ended in the log.
      const stopped = await failedDelivery(stack, hook.id);
      const gone = `resend_${stopped}_${ulid()}`;
      await stack.db('webhook_deliveries').where({ id: stopped }).update({ series: gone, status: 'pending', updated_at: new Date() });
      // Every series of a delivery runs as the workflow named by the delivery's id.
      const run = await stack.client.workflow.start('webhookDeliveryWorkflow', {
        workflowId: stopped,
        taskQueue: `${stack.taskQueue}-nobody`,
        args: [{ deliveryId: stopped, series: gone, retry: {}, base: 1 }],
      });
      await run.terminate('test: a series that ends without a word');
      expect((await resend(stopped)).status).toBe(202);

      await eventually(
        async () => {
          const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
          return ids.has(orphaned) && ids.has(stopped) ? true : undefined;
        },
        20_000,
        'the taken-over series to deliver',
      );
      expect(receiver.received.some((r) => r.headers['webhook-id'] === claimed)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

/** A delivery of `payment.test` to the configuration whose series failed, written straight to the log. */
async function failedDelivery(stack: Stack, webhookId: string): Promise<string> {
  const id = `dlv_${ulid()}`;
  const now = new Date().toISOString();
  await stack.db('webhook_deliveries').insert({
    id,
    webhook_id: webhookId,
    payment_id: 'pay_test',
    event: 'payment.test',
    body: JSON.stringify(envelope('payment.test', now, samplePayment(false, now), 0)),
    status: 'failed',
    attempts: 1,
    series: null,
  });
  return id;
}
