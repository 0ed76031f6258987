/** The Events API's use cases: every event a payment emitted, scoped by account and mode. */
import type { Knex } from 'knex';
import type { Scope } from '../domain/tenancy';
import { type EventFilter, findEvent, listEvents } from '../db/events';
import { eventView } from '../views/eventView';
import { NotFound, pageOrRefuse } from './errors';

export function eventsService({ db }: { db: Knex }) {
  return {
    async list(scope: Scope, filter: EventFilter) {
      const page = pageOrRefuse(await listEvents(db, scope, filter), 'not an event of this account and mode');
      return { data: page.rows.map(eventView), hasMore: page.hasMore };
    },
    async get(scope: Scope, id: string) {
      const event = await findEvent(db, scope, id);
      if (!event) throw new NotFound('event');
      return eventView(event);
    },
  };
}
export type EventsService = ReturnType<typeof eventsService>;
