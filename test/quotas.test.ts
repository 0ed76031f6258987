/**
 * Limits that hold (docs/security.md, "Quotas"): open payments per account and mode, test sends per
 * configuration and hour (in PostgreSQL, so across API processes), and a configuration whose
 * deliveries pile up is disabled for its backlog. Small limits through the settings.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/lib/logger';
import { buildStack } from '../src/platform/stack';
import { claimOpenPayment } from '../src/payments/openPayments.repository';
import { startReceiver } from './helpers/receiver';
import { configureWebhook } from './helpers/webhooks';
import { TEST_LOOPBACK_PORTS, eventually, httpClient, useAccount, useStack, validPayment } from './helpers/stack';
import { statementsNaming } from './helpers/statements';

const LIMITS = {
  MAX_OPEN_PAYMENTS_TEST: '3',
  MAX_OPEN_PAYMENTS_LIVE: '2',
  MAX_TEST_SENDS_PER_WEBHOOK_HOUR: '2',
  MAX_TEST_SENDS_PER_ACCOUNT_HOUR: '3',
  MAX_PENDING_DELIVERIES_PER_WEBHOOK: '2',
  // A failed first attempt leaves its delivery pending for the hour: the backlog grows.
  WEBHOOK_RETRY_INITIAL_INTERVAL: '1h',
  WEBHOOK_TIMEOUT: '1s',
};

describe('quotas', () => {
  const stack = useStack({ env: LIMITS });

  describe('open payments per account and mode', () => {
    const acct = useAccount(stack);

    it('concurrent creates never pass MAX_OPEN_PAYMENTS_TEST; a refusal starts nothing; an ended payment frees its place', async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          stack.http.post('/api/v1/payments', {
            key: acct.test_api_key,
            body: validPayment(),
            headers: { 'Idempotency-Key': `open-${i}-${Date.now()}` },
          }),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status !== 201);
      expect(created).toHaveLength(3);
      for (const r of refused) {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('open_payment_limit_reached');
        expect(r.body.error.details).toEqual({ limit: 3, setting: 'MAX_OPEN_PAYMENTS_TEST' });
      }
      const rows = await stack.db('payments').where({ account_id: acct.account_id, livemode: false });
      expect(rows.map((r) => r.id).sort()).toEqual(created.map((c) => c.body.id).sort());
      // Only the three created have a workflow: the refused ones started none.
      const runs = await eventually(async () => {
        const n = (await stack.client.workflow.count(`AccountId = "${acct.account_id}"`)).count;
        return n >= 3 ? n : undefined;
      });
      expect(runs).toBe(3);

      // The other mode has its own count.
      const live = await stack.http.post('/api/v1/payments', { key: acct.live_api_key, body: validPayment() });
      expect(live.status).toBe(201);

      // A cancelled payment is terminal: its place is free again.
      const cancel = await stack.http.post(`/api/v1/payments/${created[0].body.id}/cancel`, { key: acct.test_api_key, body: {} });
      expect(cancel.status).toBe(200);
      const again = await eventually(async () => {
        const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
        return res.status === 201 ? res : undefined;
      });
      expect(again.status).toBe(201);
      const full = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
      expect(full.status).toBe(409);
    });
    it('a claim is one statement; concurrent claims stop at the limit; a retry keeps the place it has', async () => {
      const own = await stack.newAccount();
      const scope = { accountId: own.account_id, livemode: false };
      const first = `pay_claim_${Date.now()}`;
      const claim = await statementsNaming(stack.db, first, () => claimOpenPayment(stack.db, scope, first, 2));
      expect(claim.result).toBe(true);
      expect(claim.statements).toHaveLength(1);

      const others = Array.from({ length: 6 }, (_, i) => `${first}_${i}`);
      const claimed = await Promise.all(others.map((id) => claimOpenPayment(stack.db, scope, id, 2)));
      expect(claimed.filter(Boolean)).toHaveLength(1);
      expect(await claimOpenPayment(stack.db, scope, first, 2)).toBe(true);
      const rows = await stack.db('payment_claims').where({ account_id: own.account_id }).pluck('payment_id');
      expect(rows.sort()).toEqual([first, others[claimed.indexOf(true)]].sort());
    });
  });

  describe('test sends per configuration and hour', () => {
    const acct = useAccount(stack);
    let second: Awaited<ReturnType<typeof buildStack>> | undefined;
    afterAll(async () => second?.stop());

    it('MAX_TEST_SENDS_PER_WEBHOOK_HOUR holds across API processes, per configuration', async () => {
      const receiver = await startReceiver();
      try {
        const hook = await configureWebhook(stack, acct.test_api_key, receiver.url);
        const other = await configureWebhook(stack, acct.test_api_key, receiver.url);
        // A second API process on the same database: nothing of the count lives in a process.
        second = await buildStack({
          config: loadConfig({
            ...process.env,
            ...LIMITS,
            DATABASE_URL: stack.config.DATABASE_URL,
            TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
            TEMPORAL_TASK_QUEUE: stack.taskQueue,
            SERVICE_JWT_SECRET: stack.config.SERVICE_JWT_SECRET,
            WEBHOOK_SECRET_KEY: stack.config.WEBHOOK_SECRET_KEY?.toString('base64'),
            WEBHOOK_ALLOW_LOOPBACK: 'true',
            WEBHOOK_LOOPBACK_PORTS: TEST_LOOPBACK_PORTS,
            API_METRICS_PORT: '0',
            LOG_LEVEL: 'silent',
          }),
          logger: createLogger('silent'),
          api: { port: 0 },
        });
        const elsewhere = httpClient(second.api!.url);
        const send = (http: typeof elsewhere, id: string) => http.post(`/api/v1/webhooks/${id}/test`, { key: acct.test_api_key, body: {} });
        expect((await send(stack.http, hook.id)).status).toBe(202);
        expect((await send(elsewhere, hook.id)).status).toBe(202);
        for (const http of [stack.http, elsewhere]) {
          const refused = await send(http, hook.id);
          expect(refused.status).toBe(409);
          expect(refused.body.error.code).toBe('test_send_limit_reached');
          expect(refused.body.error.details).toEqual({ limit: 2, setting: 'MAX_TEST_SENDS_PER_WEBHOOK_HOUR' });
        }
        expect((await send(elsewhere, other.id)).status).toBe(202);
      } finally {
        await receiver.close();
      }
    });
  });

  describe('test sends per account and mode and hour', () => {
    const acct = useAccount(stack);

    it('MAX_TEST_SENDS_PER_ACCOUNT_HOUR holds whatever the configurations: configure, test, delete, configure again is no fresh budget', async () => {
      const receiver = await startReceiver();
      try {
        const key = acct.test_api_key;
        const send = (id: string, k = key) => stack.http.post(`/api/v1/webhooks/${id}/test`, { key: k, body: {} });
        const first = await configureWebhook(stack, key, receiver.url);
        expect((await send(first.id)).status).toBe(202);
        expect((await send(first.id)).status).toBe(202);
        expect((await send(first.id)).body.error.details).toEqual({ limit: 2, setting: 'MAX_TEST_SENDS_PER_WEBHOOK_HOUR' });
        expect((await stack.http.delete(`/api/v1/webhooks/${first.id}`, { key })).status).toBe(200);

        const again = await configureWebhook(stack, key, receiver.url);
        expect((await send(again.id)).status).toBe(202);
        const deliveries = async () =>
          (await stack.db('webhook_deliveries').whereIn('webhook_id', [first.id, again.id]).count({ n: '*' }))[0].n;
        const before = Number(await deliveries());
        // The account's third: its budget is spent, on a configuration that has sent only one.
        for (const id of [again.id, (await configureWebhook(stack, key, receiver.url)).id]) {
          const refused = await send(id);
          expect(refused.status, JSON.stringify(refused.body)).toBe(409);
          expect(refused.body.error.code).toBe('test_send_limit_reached');
          expect(refused.body.error.details).toEqual({ limit: 3, setting: 'MAX_TEST_SENDS_PER_ACCOUNT_HOUR' });
          expect(refused.body.error.message).toMatch(/test webhook configurations were sent 3 test events this hour/);
        }
        // A refusal sends and records nothing.
        expect(Number(await deliveries())).toBe(before);

        // The other mode, and another account, have budgets of their own.
        const live = await stack
          .db('webhooks')
          .insert({
            id: `wh_live${Date.now()}`,
            account_id: acct.account_id,
            livemode: true,
            url: 'https://192.0.2.1/hook',
            secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
            events: ['payment.created'],
            active: true,
          })
          .returning('id');
        expect((await send(live[0].id as string, acct.live_api_key)).status).toBe(202);
        const stranger = await stack.newAccount();
        const theirs = await configureWebhook(stack, stranger.test_api_key, receiver.url);
        expect((await send(theirs.id, stranger.test_api_key)).status).toBe(202);
      } finally {
        await receiver.close();
      }
    });
  });

  describe('idempotency records', () => {
    const acct = useAccount(stack);
    const other = useAccount(stack);

    it("expire after 24 hours and are deleted: any account's request with a key deletes the oldest expired in passing", async () => {
      const planted = (key: string, hoursAgo: number) => ({
        account_id: other.account_id,
        livemode: false,
        key,
        request_hash: 'x',
        resource_id: 'r',
        created_at: new Date(Date.now() - hoursAgo * 3600_000),
      });
      await stack.db('idempotency_keys').insert([planted('expired-a', 30 * 24), planted('expired-b', 25), planted('fresh', 23)]);
      const res = await stack.http.post('/api/v1/webhooks/configure', {
        key: acct.test_api_key,
        body: { url: 'http://127.0.0.1:9/hook' },
        headers: { 'Idempotency-Key': `passing-${Date.now()}` },
      });
      expect(res.status).toBe(201);
      const left = await stack.db('idempotency_keys').where({ account_id: other.account_id }).pluck('key');
      expect(left).toEqual(['fresh']);
    });
  });

  describe('a configuration that cannot keep up', () => {
    const acct = useAccount(stack);

    it('is disabled with disabled_reason "backlog" past MAX_PENDING_DELIVERIES_PER_WEBHOOK; its events stay listed', async () => {
      const receiver = await startReceiver(() => 500);
      try {
        const hook = await configureWebhook(stack, acct.test_api_key, receiver.url, ['payment.created']);
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
          expect(res.status).toBe(201);
          ids.push(res.body.id);
        }
        const disabled = await eventually(async () => {
          const res = await stack.http.get(`/api/v1/webhooks/${hook.id}`, { key: acct.test_api_key });
          return res.body.active === false ? res.body : undefined;
        });
        expect(disabled.disabled_reason).toBe('backlog');
        const events = await stack.http.get('/api/v1/events?type=payment.created', { key: acct.test_api_key });
        expect(events.body.data.map((e: { data: { id: string } }) => e.data.id).sort()).toEqual(ids.sort());
      } finally {
        await receiver.close();
      }
    });
  });
});
