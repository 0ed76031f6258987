import Router from '@koa/router';
import { PAYMENT_EVENTS } from '../../domain/payment';
import {
  createSingleDelivery,
  createWebhook,
  deleteWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
  failedDeliveriesSince,
  findDelivery,
  prepareResend,
  rotateWebhookSecret,
  setWebhookActive,
  type WebhookRow,
} from '../../db/webhooks';
import { deliveryRetry } from '../../activities';
import { webhookDeliveryWorkflow } from '../../workflows';
import { checkResolvedHost, checkWebhookUrl } from '../../webhooks/urlPolicy';
import { webhookSecretKey } from '../../config';
import { type AppDeps, type AppState, withTemporalDeadline } from '../context';
import { ApiError, ID_PATTERN, invalidRequest, notFound, parse, checkIdParam } from '../errors';
import { scopeOf } from '../../domain/tenancy';
import {
  ConfigureWebhookRequest,
  ListDeliveriesQuery,
  NoQuery,
  RecoverRequest,
  RotateSecretRequest,
  pageRequestOf,
  UpdateWebhookRequest,
} from '../schemas';
import { ulid } from 'ulid';

/** The configure and rotate answers: exactly the spec's fields (2.2), plus the secret. */
const configuredView = (w: WebhookRow) => ({ id: w.id, url: w.url, events: w.events, active: w.active });
const publicView = (w: WebhookRow) => ({ ...configuredView(w), disabled_reason: w.disabled_reason });

const badUrl = (message: string) => new ApiError(400, 'invalid_request', `url: ${message}`, [{ field: 'url', message }]);

export function webhookRoutes({ db, temporal, config }: AppDeps) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('webhook'));

  router.post('/webhooks/configure', async (ctx) => {
    const principal = ctx.state.principal!;
    const body = parse(ConfigureWebhookRequest, ctx.state.body);
    const rules = { livemode: principal.livemode, allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK };
    const check = checkWebhookUrl(body.url, rules);
    if (!check.ok) throw badUrl(check.message);
    const resolved = await checkResolvedHost(check.url, rules);
    if (!resolved.ok) throw badUrl(resolved.message);
    const row = await createWebhook(
      db,
      webhookSecretKey(config),
      scopeOf(principal),
      check.url.toString(),
      body.events ?? [...PAYMENT_EVENTS],
    );
    ctx.state.responseHoldsSecret = true;
    ctx.status = 201;
    ctx.body = { success: true, webhook: { ...configuredView(row), secret: row.secret } };
  });

  router.get('/webhooks', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    const rows = await listWebhooks(db, scopeOf(ctx.state.principal!));
    ctx.body = {
      object: 'list',
      data: rows.map((w) => ({ ...publicView(w), livemode: w.livemode, created_at: w.created_at.toISOString() })),
    };
  });

  router.delete('/webhooks/:id', async (ctx) => {
    if (!(await deleteWebhook(db, scopeOf(ctx.state.principal!), ctx.params.id))) throw notFound('webhook');
    ctx.body = { id: ctx.params.id, deleted: true };
  });

  router.post('/webhooks/:id/rotate-secret', async (ctx) => {
    const { expire_previous_in_seconds } = parse(RotateSecretRequest, ctx.state.body);
    const row = await rotateWebhookSecret(
      db,
      webhookSecretKey(config),
      scopeOf(ctx.state.principal!),
      ctx.params.id,
      expire_previous_in_seconds,
    );
    if (!row) throw notFound('webhook');
    ctx.state.responseHoldsSecret = true;
    ctx.body = { success: true, webhook: { ...configuredView(row), secret: row.secret } };
  });

  router.post('/webhooks/:id/test', async (ctx) => {
    parse(NoQuery, ctx.state.body);
    const principal = ctx.state.principal!;
    const row = await findWebhook(db, scopeOf(principal), ctx.params.id);
    if (!row) throw notFound('webhook');
    const now = new Date().toISOString();
    // payment.test carries a sample payment whose status is "test", so no receiver mistakes it for a real one.
    const data = {
      id: 'pay_test',
      object: 'payment',
      amount: 10.5,
      currency: 'USD',
      status: 'test',
      payer_email: 'payer@example.com',
      recipient_email: 'recipient@example.com',
      description: 'Sample payment for payment.test',
      metadata: {},
      livemode: principal.livemode,
      deposit_deadline: now,
      auto_release_after_seconds: null,
      created_at: now,
      updated_at: now,
    };
    const deliveryId = await createSingleDelivery(db, row.id, {
      event: 'payment.test',
      payment_id: data.id,
      timestamp: now,
      sequence: 0,
      data,
    });
    await withTemporalDeadline(temporal, () =>
      temporal.workflow.start(webhookDeliveryWorkflow, {
        workflowId: deliveryId,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [{ deliveryId, retry: deliveryRetry(config) }],
        staticSummary: `payment.test to ${row.url}`,
      }),
    );
    ctx.status = 202;
    ctx.body = { success: true, delivery_id: deliveryId };
  });

  /** A new series of attempts for a logged delivery (same webhook-id), under the retry policy. */
  async function resend(webhook: WebhookRow, deliveryId: string): Promise<void> {
    const attemptBase = await prepareResend(db, deliveryId);
    await withTemporalDeadline(temporal, () =>
      temporal.workflow.start(webhookDeliveryWorkflow, {
        workflowId: `resend_${deliveryId}_${ulid()}`,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [{ deliveryId, retry: deliveryRetry(config), attemptBase }],
        staticSummary: `resend of ${deliveryId} to ${webhook.url}`,
      }),
    );
  }

  router.post('/webhooks/:id/deliveries/:delivery_id/resend', async (ctx) => {
    parse(NoQuery, ctx.state.body);
    if (!ID_PATTERN.test(ctx.params.delivery_id)) throw notFound('delivery');
    const row = await findWebhook(db, scopeOf(ctx.state.principal!), ctx.params.id);
    if (!row) throw notFound('webhook');
    if (!(await findDelivery(db, row.id, ctx.params.delivery_id))) throw notFound('delivery');
    await resend(row, ctx.params.delivery_id);
    ctx.status = 202;
    ctx.body = { success: true, delivery_id: ctx.params.delivery_id };
  });

  // Svix's recover: every failed delivery since a time gets a new series of attempts.
  router.post('/webhooks/:id/recover', async (ctx) => {
    const { since } = parse(RecoverRequest, ctx.state.body);
    const row = await findWebhook(db, scopeOf(ctx.state.principal!), ctx.params.id);
    if (!row) throw notFound('webhook');
    const ids = await failedDeliveriesSince(db, row.id, new Date(since));
    for (const id of ids) await resend(row, id);
    ctx.status = 202;
    ctx.body = { success: true, delivery_ids: ids };
  });

  router.get('/webhooks/:id/deliveries', async (ctx) => {
    const q = parse(ListDeliveriesQuery, ctx.query, 'query');
    const row = await findWebhook(db, scopeOf(ctx.state.principal!), ctx.params.id);
    if (!row) throw notFound('webhook');
    const schedule = {
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_INTERVAL,
      backoffCoefficient: config.WEBHOOK_RETRY_BACKOFF,
      maximumIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL,
      maximumAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    };
    const page = await listDeliveries(db, row.id, { ...pageRequestOf(q), status: q.status }, schedule);
    if ('cursorNotFound' in page) throw invalidRequest([{ field: page.cursorNotFound, message: 'not a delivery of this configuration' }]);
    ctx.body = { object: 'list', data: page.data, has_more: page.hasMore };
  });

  // Turn a configuration on again (after a 410 disabled it) or off; deliveries resume for new events.
  router.patch('/webhooks/:id', async (ctx) => {
    const { active } = parse(UpdateWebhookRequest, ctx.state.body);
    const row = await setWebhookActive(db, scopeOf(ctx.state.principal!), ctx.params.id, active);
    if (!row) throw notFound('webhook');
    ctx.body = publicView(row);
  });

  return router;
}
