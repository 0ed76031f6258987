import Router from '@koa/router';
import { scopeOf } from '../../domain/tenancy';
import type { WebhookRow, WebhooksService, WebhookWithSecret } from '../../services/webhooks';
import type { AppState } from '../context';
import { checkIdParam, parse } from '../parse';
import {
  ConfigureWebhookRequest,
  ListDeliveriesQuery,
  NoQuery,
  RecoverRequest,
  RotateSecretRequest,
  UpdateWebhookRequest,
  pageRequestOf,
} from '../schemas';

/** The configure and rotate answers: exactly the spec's fields (2.2), plus the secret. */
const configuredView = (w: WebhookRow) => ({ id: w.id, url: w.url, events: w.events, active: w.active });
const withSecret = (w: WebhookWithSecret) => ({ success: true, webhook: { ...configuredView(w), secret: w.secret } });
const publicView = (w: WebhookRow) => ({ ...configuredView(w), disabled_reason: w.disabled_reason });

/** Parse, call one use case, respond. */
export function webhookRoutes(webhooks: WebhooksService) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('webhook'));
  router.param('delivery_id', checkIdParam('delivery'));
  const scope = (state: AppState) => scopeOf(state.principal!);

  router.post('/webhooks/configure', async (ctx) => {
    const body = parse(ConfigureWebhookRequest, ctx.state.body);
    const row = await webhooks.configure(scope(ctx.state), body);
    ctx.state.responseHoldsSecret = true;
    ctx.status = 201;
    ctx.body = withSecret(row);
  });

  router.get('/webhooks', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    const rows = await webhooks.list(scope(ctx.state));
    ctx.body = {
      object: 'list',
      data: rows.map((w) => ({ ...publicView(w), livemode: w.livemode, created_at: w.created_at.toISOString() })),
      has_more: false,
    };
  });

  router.delete('/webhooks/:id', async (ctx) => {
    await webhooks.remove(scope(ctx.state), ctx.params.id);
    ctx.body = { id: ctx.params.id, deleted: true };
  });

  router.post('/webhooks/:id/rotate-secret', async (ctx) => {
    const { expire_previous_in_seconds } = parse(RotateSecretRequest, ctx.state.body);
    const row = await webhooks.rotateSecret(scope(ctx.state), ctx.params.id, expire_previous_in_seconds);
    ctx.state.responseHoldsSecret = true;
    ctx.body = withSecret(row);
  });

  router.post('/webhooks/:id/test', async (ctx) => {
    parse(NoQuery, ctx.state.body);
    const deliveryId = await webhooks.sendTest(scope(ctx.state), ctx.params.id);
    ctx.status = 202;
    ctx.body = { success: true, delivery_id: deliveryId };
  });

  router.post('/webhooks/:id/deliveries/:delivery_id/resend', async (ctx) => {
    parse(NoQuery, ctx.state.body);
    await webhooks.resend(scope(ctx.state), ctx.params.id, ctx.params.delivery_id);
    ctx.status = 202;
    ctx.body = { success: true, delivery_id: ctx.params.delivery_id };
  });

  router.post('/webhooks/:id/recover', async (ctx) => {
    const { since } = parse(RecoverRequest, ctx.state.body);
    const ids = await webhooks.recover(scope(ctx.state), ctx.params.id, new Date(since));
    ctx.status = 202;
    ctx.body = { success: true, delivery_ids: ids };
  });

  router.get('/webhooks/:id/deliveries', async (ctx) => {
    const q = parse(ListDeliveriesQuery, ctx.query, 'query');
    const page = await webhooks.deliveries(scope(ctx.state), ctx.params.id, { ...pageRequestOf(q), status: q.status });
    ctx.body = { object: 'list', data: page.data, has_more: page.hasMore };
  });

  router.patch('/webhooks/:id', async (ctx) => {
    const { active } = parse(UpdateWebhookRequest, ctx.state.body);
    ctx.body = publicView(await webhooks.setActive(scope(ctx.state), ctx.params.id, active));
  });

  return router;
}
