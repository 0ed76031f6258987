/** The webhook routes: configurations, secrets, test events, the delivery log, resend and recover. */
import { scopeOf } from '../tenants/tenancy.rules';
import { webhookListItemView, webhookSecretView, webhookView } from './webhookConfiguration.view';
import type { WebhooksService } from './webhooks.service';
import type { AppState } from '../platform/http/context';
import { Routes } from '../platform/http/registry';
import {
  ConfigureWebhookRequest,
  DeletedResponse,
  Delivery,
  ListDeliveriesQuery,
  RecoverRequest,
  RotateSecretRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookConfigured,
  WebhookDeliveryList,
  WebhookList,
  WebhookListItem,
  WebhookRecovered,
  WebhookResent,
  WebhookTestSent,
  pageRequestOf,
} from '../platform/http/schemas';
import { listPage, wholeList } from '../platform/http/lists';

/** The configure and rotate answers: the configuration with its secret. */
const withSecret = (w: Parameters<typeof webhookSecretView>[0]) => ({ success: true as const, webhook: webhookSecretView(w) });

/** Parse, call one use case, respond. */
export function webhookRoutes(webhooks: WebhooksService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'webhook', 'The webhook configuration id (wh_…), from POST /api/v1/webhooks/configure or GET /api/v1/webhooks');
  routes.param('delivery_id', 'delivery', 'The delivery id (dlv_…), from GET /api/v1/webhooks/{id}/deliveries');
  const scope = (state: AppState) => scopeOf(state.principal!);
  const tag = 'Webhooks';

  routes.add(
    {
      method: 'post',
      path: '/webhooks/configure',
      tag,
      summary: 'Configure a webhook endpoint',
      body: ConfigureWebhookRequest,
      responses: { 201: { description: 'The configuration with its secret (shown once)', schema: WebhookConfigured } },
      errors: ['webhook_limit_reached'],
    },
    async (ctx, { body }) => {
      const row = await webhooks.configure(scope(ctx.state), body);
      ctx.state.responseHoldsSecret = true;
      ctx.status = 201;
      ctx.body = withSecret(row);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/webhooks',
      tag,
      summary: 'List webhook configurations (secrets never shown)',
      responses: { 200: { description: 'Configurations', schema: WebhookList } },
    },
    async (ctx) => {
      const rows = await webhooks.list(scope(ctx.state));
      ctx.body = wholeList(rows.map(webhookListItemView));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/webhooks/:id',
      tag,
      summary: 'Read a configuration (its secret never shown)',
      description: 'A deleted configuration is not found here; its delivery log stays readable.',
      responses: { 200: { description: 'The configuration', schema: WebhookListItem } },
    },
    async (ctx) => {
      ctx.body = webhookListItemView(await webhooks.get(scope(ctx.state), ctx.params.id));
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/webhooks/:id',
      tag,
      summary: 'Delete a configuration; pending retries stop',
      responses: { 200: { description: 'Deleted', schema: DeletedResponse } },
    },
    async (ctx) => {
      await webhooks.remove(scope(ctx.state), ctx.params.id);
      ctx.body = { id: ctx.params.id, deleted: true };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      tag,
      summary: 'Rotate the signing secret; the previous one keeps signing during the overlap',
      body: RotateSecretRequest,
      responses: { 200: { description: 'The configuration with its new secret', schema: WebhookConfigured } },
    },
    async (ctx, { body: { expire_previous_in_seconds } }) => {
      const row = await webhooks.rotateSecret(scope(ctx.state), ctx.params.id, expire_previous_in_seconds);
      ctx.state.responseHoldsSecret = true;
      ctx.body = withSecret(row);
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/webhooks/:id/test',
      tag,
      summary: 'Send a payment.test event',
      responses: { 202: { description: 'Delivery started', schema: WebhookTestSent } },
      errors: ['test_send_limit_reached'],
    },
    async (ctx) => {
      const deliveryId = await webhooks.sendTest(scope(ctx.state), ctx.params.id);
      ctx.status = 202;
      ctx.body = { success: true, delivery_id: deliveryId };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/webhooks/:id/deliveries/:delivery_id/resend',
      tag,
      summary: 'Resend a delivery now: the waiting series’ next attempt, or a new series; the same webhook-id',
      description:
        'While the delivery’s series waits between attempts, its next attempt runs now, numbered after the last. While an attempt is in flight, 409 naming the series. After a series has ended, a new series of attempts.',
      responses: { 202: { description: 'The attempt started', schema: WebhookResent } },
      errors: ['not_found', 'delivery_in_progress'],
    },
    async (ctx) => {
      const attempt = await webhooks.resend(scope(ctx.state), ctx.params.id, ctx.params.delivery_id);
      ctx.status = 202;
      ctx.body = { success: true, delivery_id: ctx.params.delivery_id, attempt };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/webhooks/:id/recover',
      tag,
      summary: 'Resend every delivery since a time that failed and has no series running, at most RECOVER_MAX_DELIVERIES per call',
      body: RecoverRequest,
      responses: { 202: { description: 'The deliveries resent', schema: WebhookRecovered } },
    },
    async (ctx, { body: { since } }) => {
      const { ids, hasMore, pending } = await webhooks.recover(scope(ctx.state), ctx.params.id, new Date(since));
      ctx.status = 202;
      ctx.body = {
        success: true,
        delivery_ids: ids,
        queued: ids.length,
        has_more: hasMore,
        pending,
        message: recoverMessage(ids.length, pending),
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/webhooks/:id/deliveries',
      tag,
      summary: "Delivery log: every attempt with time, status code, duration, error and the answer's first 1 KB",
      description: 'Readable after the configuration is deleted, too.',
      query: ListDeliveriesQuery,
      responses: { 200: { description: 'Deliveries, newest first', schema: WebhookDeliveryList } },
    },
    async (ctx, { query: q }) => {
      const page = await webhooks.deliveries(scope(ctx.state), ctx.params.id, {
        ...pageRequestOf(q),
        status: q.status,
        paymentId: q.payment_id,
      });
      ctx.body = listPage(page);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/webhooks/:id/deliveries/:delivery_id',
      tag,
      summary: 'Read one delivery with every attempt',
      description: 'Readable after the configuration is deleted, too.',
      responses: { 200: { description: 'The delivery', schema: Delivery } },
    },
    async (ctx) => {
      ctx.body = await webhooks.delivery(scope(ctx.state), ctx.params.id, ctx.params.delivery_id);
    },
  );

  routes.add(
    {
      method: 'patch',
      path: '/webhooks/:id',
      tag,
      summary: 'Turn a configuration on (after a 410 disabled it) or off',
      body: UpdateWebhookRequest,
      responses: { 200: { description: 'The configuration', schema: Webhook } },
    },
    async (ctx, { body: { active } }) => {
      ctx.body = webhookView(await webhooks.setActive(scope(ctx.state), ctx.params.id, active));
    },
  );

  return routes;
}

/** A recover's answer in words: what it queued, and the pending deliveries it left to their series (docs/webhooks.md). */
function recoverMessage(queued: number, pending: number): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const queuedText =
    queued === 0
      ? 'no failed delivery to queue'
      : `${plural(queued, 'failed delivery')} queued for a new series of attempts`.replace('deliverys', 'deliveries');
  if (pending === 0) return queuedText;
  return `${queuedText}; ${plural(pending, 'delivery')} since then ${pending === 1 ? 'is' : 'are'} still pending, retried by ${pending === 1 ? 'its' : 'their'} series on ${pending === 1 ? 'its' : 'their'} own schedule (recover queues only failed ones; resend one to try it now)`.replace(
    'deliverys',
    'deliveries',
  );
}
