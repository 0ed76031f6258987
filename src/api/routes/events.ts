import Router from '@koa/router';
import { scopeOf } from '../../domain/tenancy';
import type { EventsService } from '../../services/events';
import type { AppState } from '../context';
import { checkIdParam, parse } from '../parse';
import { ListEventsQuery, NoQuery, pageRequestOf } from '../schemas';

/** `GET /events` and `GET /events/:id`: parse, call, respond. */
export function eventRoutes(events: EventsService) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('event'));

  router.get('/events', async (ctx) => {
    const q = parse(ListEventsQuery, ctx.query, 'query');
    const page = await events.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), paymentId: q.payment_id, type: q.type });
    ctx.body = { object: 'list', data: page.data, has_more: page.hasMore };
  });

  router.get('/events/:id', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = await events.get(scopeOf(ctx.state.principal!), ctx.params.id);
  });
  return router;
}
