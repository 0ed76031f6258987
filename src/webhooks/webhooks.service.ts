/**
 * The webhook use cases: configurations, their secrets, the delivery log, and deliveries started
 * outside a payment's run (`payment.test`, resend, recover), each through the one way in
 * (src/webhooks/deliveries.service.ts). With the payments use cases, the only code that starts
 * workflows; routes parse, call one of these and respond.
 */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { type Config, webhookSecretKey } from '../platform/config';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import { type DeliveryView, deliveryView } from './delivery.view';
import { PAYMENT_EVENTS } from '../payments/paymentTypes.rules';
import { samplePayment } from '../payments/payment.view';
import { type Scope } from '../tenants/tenancy.rules';
import { envelope } from './webhookEnvelope.view';
import {
  type WebhookConfiguration,
  type WebhookWithSecret,
  countWebhooks,
  createWebhook,
  deleteWebhook,
  findWebhook,
  findWebhookWithDeleted,
  listWebhooks,
  rotateWebhookSecret,
  setWebhookActive,
  countTestSend,
} from './webhookConfigurations.repository';
import {
  type DeliveryFilter,
  type LoggedDelivery,
  createSingleDelivery,
  dropUnattempted,
  failedDeliveriesSince,
  findDelivery,
  getDelivery,
  listDeliveries,
  pendingDeliveriesSince,
} from './webhookDeliveries.repository';
import { type DeliveryRetry, deliveryRetry, nextAttemptAt } from './retrySchedule';
import { checkResolvedHost, checkWebhookUrl, webhookUrlRules } from './urlPolicy';
import { withAccountLock } from '../tenants/tenants.repository';
import { deliveries as deliveryWorkflows } from './deliveries.service';
import { DeliveryInProgress, InvalidInput, NotFound, QuotaExceeded, pageOrRefuse } from '../platform/useCaseErrors';

interface WebhooksDeps {
  db: Knex;
  temporal: Client;
  config: Config;
}

export type { WebhookConfiguration, WebhookWithSecret };

/** A logged delivery as the API shows it, its next attempt by the retry policy. */
const viewOf = (retry: DeliveryRetry, { delivery, attempts }: LoggedDelivery): DeliveryView =>
  deliveryView(delivery, attempts, nextAttemptAt(retry, delivery.status, attempts.at(-1)));

const badUrl = (message: string) => new InvalidInput([{ field: 'url', message }]);

/** How many of a recover's series start at once. */
const RECOVER_START_CONCURRENCY = 16;

export function webhooksService({ db, temporal, config }: WebhooksDeps) {
  const secretKey = () => webhookSecretKey(config);
  const { startFirst, resend, retryNow } = deliveryWorkflows({ db, temporal, config });

  async function load(scope: Scope, id: string): Promise<WebhookConfiguration> {
    const row = await findWebhook(db, scope, id);
    if (!row) throw new NotFound('webhook');
    return row;
  }

  async function loadWithDeleted(scope: Scope, id: string): Promise<WebhookConfiguration> {
    const row = await findWebhookWithDeleted(db, scope, id);
    if (!row) throw new NotFound('webhook');
    return row;
  }

  return {
    /** The URL is checked against the mode's rules, by name and by what it resolves to. */
    async configure(scope: Scope, input: { url: string; events?: string[] }): Promise<WebhookWithSecret> {
      const rules = webhookUrlRules(config, scope.livemode);
      const check = checkWebhookUrl(input.url, rules);
      if (!check.ok) throw badUrl(check.message);
      const resolved = await checkResolvedHost(check.url, rules);
      if (!resolved.ok) throw badUrl(resolved.message);
      const max = config.MAX_WEBHOOKS_PER_ACCOUNT;
      // Counted and added under the account's lock: concurrent requests cannot pass the quota together.
      return withAccountLock(db, scope.accountId, async (trx) => {
        if ((await countWebhooks(trx, scope)) >= max) {
          const mode = scope.livemode ? 'live' : 'test';
          const message = `this account has ${max} ${mode} webhook configurations, the most it may have; delete one first`;
          throw new QuotaExceeded('webhooks', max, 'MAX_WEBHOOKS_PER_ACCOUNT', message);
        }
        return createWebhook(trx, secretKey(), scope, check.url.toString(), input.events ?? [...PAYMENT_EVENTS]);
      });
    },

    list: (scope: Scope) => listWebhooks(db, scope),

    get: (scope: Scope, id: string) => load(scope, id),

    async remove(scope: Scope, id: string): Promise<void> {
      if (!(await deleteWebhook(db, scope, id))) throw new NotFound('webhook');
    },

    async rotateSecret(scope: Scope, id: string, expirePreviousInSeconds: number): Promise<WebhookWithSecret> {
      const row = await rotateWebhookSecret(db, secretKey(), scope, id, expirePreviousInSeconds);
      if (!row) throw new NotFound('webhook');
      return row;
    },

    /** Sends `payment.test` with the sample payment, whose status is "test" so that no receiver mistakes it for a real one. */
    async sendTest(scope: Scope, id: string): Promise<string> {
      const row = await load(scope, id);
      const perWebhook = config.MAX_TEST_SENDS_PER_WEBHOOK_HOUR;
      const perAccount = config.MAX_TEST_SENDS_PER_ACCOUNT_HOUR;
      const refusedBy = await countTestSend(db, scope, row.id, { perWebhook, perAccount });
      if (refusedBy === 'webhook') {
        const message = `webhook ${row.id} was sent ${perWebhook} test events this hour, the most it may be (MAX_TEST_SENDS_PER_WEBHOOK_HOUR); send again next hour`;
        throw new QuotaExceeded('test_sends', perWebhook, 'MAX_TEST_SENDS_PER_WEBHOOK_HOUR', message);
      }
      if (refusedBy === 'account') {
        const mode = scope.livemode ? 'live' : 'test';
        const message = `this account's ${mode} webhook configurations were sent ${perAccount} test events this hour, the most they may be together, deleted ones included (MAX_TEST_SENDS_PER_ACCOUNT_HOUR); send again next hour`;
        throw new QuotaExceeded('test_sends', perAccount, 'MAX_TEST_SENDS_PER_ACCOUNT_HOUR', message);
      }
      const now = new Date().toISOString();
      const deliveryId = await createSingleDelivery(db, row.id, envelope('payment.test', now, samplePayment(scope.livemode, now), 0));
      try {
        await startFirst(scope, deliveryId, ORIGINAL_SERIES, `payment.test to ${row.id}`);
      } catch (err) {
        // Left in the log, it would be pending for good, refusing every resend; the client, answered an error, never saw its id.
        await dropUnattempted(db, deliveryId);
        throw err;
      }
      return deliveryId;
    },

    /** A new series, or the running one's next attempt now; the number of the attempt that runs. */
    async resend(scope: Scope, id: string, deliveryId: string): Promise<number> {
      const row = await load(scope, id);
      const delivery = await findDelivery(db, row.id, deliveryId);
      if (!delivery) throw new NotFound('delivery');
      const resent = await resend(scope, row, deliveryId, delivery.attempts);
      if ('attempt' in resent) return resent.attempt;
      const woken = await retryNow(scope, deliveryId, resent.running, delivery.attempts, resent.run);
      if (woken === null) throw new DeliveryInProgress(deliveryId, resent.running);
      return woken;
    },

    /**
     * Svix's recover: every delivery since a time that failed (and has no series running) gets a
     * new series of attempts now, at most RECOVER_MAX_DELIVERIES per call. A delivery still being
     * retried is left to its running series.
     */
    /** `pending`: deliveries since then still pending, which recover leaves to their series (docs/webhooks.md). */
    async recover(scope: Scope, id: string, since: Date): Promise<{ ids: string[]; hasMore: boolean; pending: number }> {
      const row = await load(scope, id);
      const max = config.RECOVER_MAX_DELIVERIES;
      const found = await failedDeliveriesSince(db, row.id, since, max + 1);
      const ids: string[] = [];
      // Started RECOVER_START_CONCURRENCY at a time: a thousand starts one after another would take the request's time.
      const batch = found.slice(0, max);
      for (let i = 0; i < batch.length; i += RECOVER_START_CONCURRENCY) {
        const part = batch.slice(i, i + RECOVER_START_CONCURRENCY);
        const resent = await Promise.all(part.map((d) => resend(scope, row, d.id, d.attempts)));
        part.forEach((d, j) => 'attempt' in resent[j] && ids.push(d.id));
      }
      return { ids, hasMore: found.length > max, pending: await pendingDeliveriesSince(db, row.id, since) };
    },

    /** The delivery log, readable after the configuration's deletion too. */
    async deliveries(scope: Scope, id: string, filter: DeliveryFilter) {
      const row = await loadWithDeleted(scope, id);
      const page = pageOrRefuse(await listDeliveries(db, row.id, filter), 'not a delivery of this configuration');
      const retry = deliveryRetry(config);
      return { data: page.data.map((d) => viewOf(retry, d)), hasMore: page.hasMore };
    },

    async delivery(scope: Scope, id: string, deliveryId: string) {
      const row = await loadWithDeleted(scope, id);
      const found = await getDelivery(db, row.id, deliveryId);
      if (!found) throw new NotFound('delivery');
      return viewOf(deliveryRetry(config), found);
    },

    /** On again (after a 410 or the failure window disabled it) or off; deliveries resume for new events. */
    async setActive(scope: Scope, id: string, active: boolean): Promise<WebhookConfiguration> {
      const row = await setWebhookActive(db, scope, id, active);
      if (!row) throw new NotFound('webhook');
      return row;
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
