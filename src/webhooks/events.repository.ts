/**
 * The event repository, one outbox for every object: the events of each payment's history entry
 * (written by src/payments/projection.repository.ts) and of payouts' and recipients' steps (written by
 * `recordEvent`, src/webhooks/deliveryPlan.repository.ts), for the Events API; how the API shows one is
 * src/webhooks/event.view.ts's.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { WebhookEvent } from './webhookEvents.rules';
import type { StoredEvent } from './event.view';
import type { Scope } from '../tenants/tenancy.rules';
import { OWN_EVENT_ORDINAL } from '../payments/transitionEvents.rules';
import { type CreatedRange, type PageRequest, pageOf, withinCreated } from '../platform/database/pagination';

/** A row of events: what its view reads, with its tenancy. */
interface EventRecord extends StoredEvent {
  account_id: string;
  livemode: boolean;
}

/**
 * Derived from the object (a payment, a payout, a recipient), its version and, for a payment, the
 * event's ordinal (src/payments/transitionEvents.rules.ts), so every writer of one event writes one
 * row; a step's own event keeps `object|version`.
 */
export function eventId(paymentId: string, sequence: number, ordinal = OWN_EVENT_ORDINAL): string {
  const key = ordinal === OWN_EVENT_ORDINAL ? `${paymentId}|${sequence}` : `${paymentId}|${sequence}|${ordinal}`;
  return `evt_${createHash('sha256').update(key).digest('hex').slice(0, 26)}`;
}

export interface EventFilter extends PageRequest, CreatedRange {
  paymentId?: string;
  type?: WebhookEvent;
}

const scoped = (db: Knex, scope: Scope) => () => db('events').where({ account_id: scope.accountId, livemode: scope.livemode });

export async function listEvents(db: Knex, scope: Scope, filter: EventFilter) {
  return pageOf<EventRecord>(
    'events',
    scoped(db, scope),
    (q) => {
      if (filter.paymentId) q.andWhere('payment_id', filter.paymentId);
      if (filter.type) q.andWhere('type', filter.type);
      return withinCreated(q, filter);
    },
    filter,
    // A split's two events share their version's moment: the refunded part comes first (src/payments/transitionEvents.rules.ts).
    'ordinal',
  );
}

export async function findEvent(db: Knex, scope: Scope, id: string): Promise<EventRecord | undefined> {
  return (await scoped(db, scope)().where({ id }).first()) as EventRecord | undefined;
}
