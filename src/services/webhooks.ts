/**
 * The webhook use cases: configurations, their secrets, the delivery log, and deliveries started
 * outside a payment's run (`payment.test`, resend, recover). The only code besides the payments
 * use cases that starts workflows; routes parse, call one of these and respond.
 */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { type Config, webhookSecretKey } from '../config';
import { PAYMENT_EVENTS, type PaymentState } from '../domain/payment';
import { paymentView } from '../domain/paymentView';
import { type RecordKind, RecordKindKey } from '../domain/searchAttributes';
import { type Scope } from '../domain/tenancy';
import {
  type DeliveryFilter,
  type WebhookRow,
  type WebhookWithSecret,
  createSingleDelivery,
  createWebhook,
  deleteWebhook,
  failedDeliveriesSince,
  findDelivery,
  findWebhook,
  findWebhookWithDeleted,
  getDelivery,
  listDeliveries,
  listWebhooks,
  prepareResend,
  rotateWebhookSecret,
  setWebhookActive,
} from '../db/webhooks';
import { deliveryRetry } from '../webhooks/retryPolicy';
import { checkResolvedHost, checkWebhookUrl } from '../webhooks/urlPolicy';
import { webhookDeliveryWorkflow } from '../workflows';
import { withinDeadline } from './deadline';
import { InvalidInput, NotFound } from './errors';

export interface WebhooksDeps {
  db: Knex;
  temporal: Client;
  config: Config;
}

export type { WebhookRow, WebhookWithSecret };

const badUrl = (message: string) => new InvalidInput([{ field: 'url', message }]);

export function webhooksService({ db, temporal, config }: WebhooksDeps) {
  const secretKey = () => webhookSecretKey(config);

  async function load(scope: Scope, id: string): Promise<WebhookRow> {
    const row = await findWebhook(db, scope, id);
    if (!row) throw new NotFound('webhook');
    return row;
  }

  async function loadWithDeleted(scope: Scope, id: string): Promise<WebhookRow> {
    const row = await findWebhookWithDeleted(db, scope, id);
    if (!row) throw new NotFound('webhook');
    return row;
  }

  /** One delivery under the retry policy, in a workflow of its own (not a payment's run). */
  async function startDelivery(workflowId: string, deliveryId: string, summary: string, attemptBase?: number): Promise<void> {
    await withinDeadline(temporal, () =>
      temporal.workflow.start(webhookDeliveryWorkflow, {
        workflowId,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [{ deliveryId, retry: deliveryRetry(config), ...(attemptBase ? { attemptBase } : {}) }],
        // Kept out of the operators' payments list (docs/operations.md).
        typedSearchAttributes: [{ key: RecordKindKey, value: 'delivery' satisfies RecordKind }],
        staticSummary: summary,
      }),
    );
  }

  /** A new series of attempts for a logged delivery (same webhook-id), under the retry policy. */
  async function resend(webhook: WebhookRow, deliveryId: string): Promise<void> {
    const attemptBase = await prepareResend(db, deliveryId);
    await startDelivery(`resend_${deliveryId}_${ulid()}`, deliveryId, `resend of ${deliveryId} to ${webhook.url}`, attemptBase);
  }

  return {
    /** The URL is checked against the mode's rules, by name and by what it resolves to. */
    async configure(scope: Scope, input: { url: string; events?: string[] }): Promise<WebhookWithSecret> {
      const rules = { livemode: scope.livemode, allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK };
      const check = checkWebhookUrl(input.url, rules);
      if (!check.ok) throw badUrl(check.message);
      const resolved = await checkResolvedHost(check.url, rules);
      if (!resolved.ok) throw badUrl(resolved.message);
      return createWebhook(db, secretKey(), scope, check.url.toString(), input.events ?? [...PAYMENT_EVENTS]);
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

    /** Sends `payment.test` with a sample payment whose status is "test", so no receiver mistakes it for a real one. */
    async sendTest(scope: Scope, id: string): Promise<string> {
      const row = await load(scope, id);
      const now = new Date().toISOString();
      const sample: PaymentState = {
        id: 'pay_test',
        accountId: scope.accountId,
        livemode: scope.livemode,
        amountMinor: '1050',
        amountExponent: 2,
        currency: 'USD',
        status: 'pending_deposit',
        payerEmail: 'payer@example.com',
        recipientEmail: 'recipient@example.com',
        description: 'Sample payment for payment.test',
        metadata: {},
        depositDeadline: now,
        autoReleaseAfterSeconds: null,
        createdAt: now,
        updatedAt: now,
        version: 0,
      };
      const data = { ...paymentView(sample), status: 'test' };
      const deliveryId = await createSingleDelivery(db, row.id, {
        event: 'payment.test',
        payment_id: data.id,
        timestamp: now,
        sequence: 0,
        data,
      });
      await startDelivery(deliveryId, deliveryId, `payment.test to ${row.url}`);
      return deliveryId;
    },

    async resend(scope: Scope, id: string, deliveryId: string): Promise<void> {
      const row = await load(scope, id);
      if (!(await findDelivery(db, row.id, deliveryId))) throw new NotFound('delivery');
      await resend(row, deliveryId);
    },

    /**
     * Svix's recover: every delivery since a time that failed, or is still being retried after a
     * failed attempt, gets a new series of attempts now.
     */
    async recover(scope: Scope, id: string, since: Date): Promise<string[]> {
      const row = await load(scope, id);
      const ids = await failedDeliveriesSince(db, row.id, since);
      for (const deliveryId of ids) await resend(row, deliveryId);
      return ids;
    },

    /** The delivery log, readable after the configuration's deletion too. */
    async deliveries(scope: Scope, id: string, filter: DeliveryFilter) {
      const row = await loadWithDeleted(scope, id);
      const retry = deliveryRetry(config);
      const page = await listDeliveries(db, row.id, filter, retry);
      if ('cursorNotFound' in page)
        throw new InvalidInput([{ field: page.cursorNotFound, message: 'not a delivery of this configuration' }]);
      return page;
    },

    async delivery(scope: Scope, id: string, deliveryId: string) {
      const row = await loadWithDeleted(scope, id);
      const found = await getDelivery(db, row.id, deliveryId, deliveryRetry(config));
      if (!found) throw new NotFound('delivery');
      return found;
    },

    /** On again (after a 410 or the failure window disabled it) or off; deliveries resume for new events. */
    async setActive(scope: Scope, id: string, active: boolean): Promise<WebhookRow> {
      const row = await setWebhookActive(db, scope, id, active);
      if (!row) throw new NotFound('webhook');
      return row;
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
