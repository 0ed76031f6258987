/** The Events API's use cases: every event a payment emitted, scoped by account and mode. */
import type { Knex } from 'knex';
import type { Scope } from '../tenants/tenancy.rules';
import { type EventFilter, findEvent, listEvents } from './events.repository';
import { eventView } from './event.view';
import { NotFound, pageOrRefuse } from '../platform/useCaseErrors';

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
