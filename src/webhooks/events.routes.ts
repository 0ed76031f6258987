/** The Events API routes: list and read events. */
import { scopeOf } from '../tenants/tenancy.rules';
import type { EventsService } from './events.service';
import { Routes } from '../platform/http/registry';
import { Event, EventList, ListEventsQuery, pageRequestOf } from '../platform/http/schemas';
import { listPage } from '../platform/http/lists';

/** `GET /events` and `GET /events/:id`: parse, call, respond. */
export function eventRoutes(events: EventsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'event', 'The event id (evt_…), from GET /api/v1/events');
  const tag = 'Events';

  routes.add(
    {
      method: 'get',
      path: '/events',
      tag,
      summary: 'List events, newest first (kept at least 30 days)',
      description: 'Every event a payment emitted, whether or not a webhook was configured: recover what a receiver missed.',
      query: ListEventsQuery,
      responses: { 200: { description: 'A page of events', schema: EventList } },
    },
    async (ctx, { query: q }) => {
      const page = await events.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), paymentId: q.payment_id, type: q.type });
      ctx.body = listPage(page);
    },
  );

  routes.add(
    { method: 'get', path: '/events/:id', tag, summary: 'Read one event', responses: { 200: { description: 'The event', schema: Event } } },
    async (ctx) => {
      ctx.body = await events.get(scopeOf(ctx.state.principal!), ctx.params.id);
    },
  );
  return routes;
}
