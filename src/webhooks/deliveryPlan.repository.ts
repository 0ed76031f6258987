/**
 * The deliveries an event owes, one per subscribed, active configuration of its account and mode,
 * each id derived one way (`deliveryKey` + the configuration's id), so a retry never records one
 * twice: a payment's transition's in the projection's own statement (`projectAndPlan`,
 * src/payments/projection.repository.ts) or alone (`planDeliveries`, `npm run repair`); a payout's,
 * a recipient's or a bank credit's in its step's transaction (`recordDeliveries`).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { ORIGINAL_SERIES } from './deliveryAttempt.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { OWN_EVENT_ORDINAL } from '../payments/transitionEvents.rules';
import type { Envelope, TransitionEnvelope } from './webhookEnvelope.view';
import { Bindings } from '../platform/database/statement';
import type { StoredWebhook } from './webhookConfigurations.repository';
import type { LoadedDelivery } from './webhookDeliveries.repository';
import { eventId } from './events.repository';

/**
 * A delivery the publication recorded, as an attempt needs it, with its configuration's row. Status
 * and attempts are `pending` and 0 for a delivery this statement recorded; a retried publication
 * finds its earlier attempts.
 */
export interface PlannedDelivery {
  delivery: LoadedDelivery['delivery'];
  webhook: StoredWebhook;
}

/**
 * A delivery id: this prefix and the first hex characters of SHA-256 of `deliveryKey` followed by the
 * configuration's id: `object|version|configuration` (`payment|version|ordinal|configuration` for a
 * payment's event that precedes its transition's own).
 */
const DELIVERY_ID_PREFIX = 'dlv_';
const DELIVERY_ID_HEX_CHARS = 26;

/** What a delivery id is derived from before the configuration's id: the object (payment, payout, recipient, bank credit), its version, and an event's ordinal. */
export function deliveryKey(objectId: string, version: number, ordinal = OWN_EVENT_ORDINAL): string {
  return `${objectId}|${version}|${ordinal === OWN_EVENT_ORDINAL ? '' : `${ordinal}|`}`;
}

/** The delivery id of `key`'s event to one configuration; deliveryCtes computes the same in SQL. */
export function deliveryIdOf(key: string, webhookId: string): string {
  return `${DELIVERY_ID_PREFIX}${createHash('sha256').update(`${key}${webhookId}`).digest('hex').slice(0, DELIVERY_ID_HEX_CHARS)}`;
}

/** Whose event it is, as `events` and `webhook_deliveries` name it: a payout's, a recipient's or a bank credit's. */
export type EventOwner = { payout_id: string } | { recipient_id: string } | { bank_credit_id: string };

/** A payout's, a recipient's or a bank credit's event as its webhook's body says it. */
interface ObjectEnvelope {
  event: string;
  timestamp: string;
  sequence: number;
  data: unknown;
}

/**
 * A payout's, a recipient's or a bank credit's event, recorded in the caller's transaction as a
 * payment's is: its row in `events` (id `eventId(object, sequence, ordinal)`, listed by
 * `GET /api/v1/events`), then its deliveries, one per active configuration of `scope` that names the
 * event, in the configurations' order, each id `deliveryIdOf(deliveryKey(object, version, ordinal),
 * configuration)` and naming the event. `ordinal` (default the step's own) orders two events of one
 * version, as a payment's split's. A retried step records neither twice. Answers the event's id.
 */
export async function recordEvent(
  tx: Knex.Transaction,
  d: { scope: Scope; objectId: string; owner: EventOwner; envelope: ObjectEnvelope; ordinal?: number },
): Promise<string> {
  const { envelope, ordinal = OWN_EVENT_ORDINAL } = d;
  const id = eventId(d.objectId, envelope.sequence, ordinal);
  await tx('events')
    .insert({
      id,
      account_id: d.scope.accountId,
      livemode: d.scope.livemode,
      ...d.owner,
      type: envelope.event,
      sequence: envelope.sequence,
      ordinal,
      data: JSON.stringify(envelope.data),
      created_at: new Date(envelope.timestamp),
    })
    .onConflict('id')
    .ignore();
  await recordDeliveries(tx, {
    ...d,
    version: envelope.sequence,
    ordinal,
    event: envelope.event,
    body: JSON.stringify(envelope),
    eventId: id,
  });
  return id;
}

async function recordDeliveries(
  tx: Knex.Transaction,
  d: { scope: Scope; objectId: string; version: number; ordinal: number; owner: EventOwner; event: string; body: string; eventId: string },
): Promise<void> {
  const hooks = await tx<{ id: string }>('webhooks')
    .where('account_id', d.scope.accountId)
    .andWhere('livemode', d.scope.livemode)
    .andWhere('active', true)
    .whereNull('deleted_at')
    .whereRaw('events @> ARRAY[?]::text[]', [d.event])
    .orderBy(['created_at', 'id'])
    .select('id');
  if (hooks.length === 0) return;
  const key = deliveryKey(d.objectId, d.version, d.ordinal);
  await tx('webhook_deliveries')
    .insert(
      hooks.map((h) => ({ id: deliveryIdOf(key, h.id), webhook_id: h.id, ...d.owner, event: d.event, event_id: d.eventId, body: d.body })),
    )
    .onConflict('id')
    .ignore();
}

/** One event's deliveries in a statement: its envelope, its body's exact bytes, and the names of its CTEs. */
interface Part {
  envelope: Envelope;
  body: string;
  hook: string;
}

/**
 * The CTEs that record one delivery of each envelope per subscribed, active configuration (`hook`,
 * `planned`; suffixed for every envelope after the first). The id is derived from the payment, its
 * version, the event's ordinal and the configuration, so a retry never records one twice.
 */
export function deliveryCtes(
  b: Bindings,
  scope: Scope,
  envelopes: TransitionEnvelope[],
  version: number,
): { ctes: string[]; parts: Part[] } {
  const ctes: string[] = [];
  const parts = envelopes.map(({ envelope, ordinal }, i) => {
    const [hook, planned] = i === 0 ? ['hook', 'planned'] : [`hook_${i}`, `planned_${i}`];
    const body = JSON.stringify(envelope);
    const key = deliveryKey(envelope.payment_id, version, ordinal);
    ctes.push(
      `${hook} AS (
      SELECT w.*, ${b.add(DELIVERY_ID_PREFIX, 'text')} || substr(encode(sha256(convert_to(${b.add(key, 'text')} || w.id, 'UTF8')), 'hex'), 1, ${DELIVERY_ID_HEX_CHARS}) AS delivery_id
      FROM webhooks w
      WHERE w.account_id = ${b.add(scope.accountId)} AND w.livemode = ${b.add(scope.livemode)}
        AND w.deleted_at IS NULL AND w.active AND w.events @> ARRAY[${b.add(envelope.event, 'text')}])`,
      `${planned} AS (
      INSERT INTO webhook_deliveries (id, webhook_id, payment_id, event, event_id, body)
      SELECT ${hook}.delivery_id, ${hook}.id, ${b.add(envelope.payment_id, 'text')}, ${b.add(envelope.event, 'text')},
        ${b.add(eventId(envelope.payment_id, version, ordinal), 'text')}, ${b.add(body, 'text')}
      FROM ${hook} ORDER BY ${hook}.created_at, ${hook}.id
      ON CONFLICT DO NOTHING RETURNING 1)`,
    );
    return { envelope, body, hook };
  });
  return { ctes, parts };
}

/**
 * Run `ctes` (ending with `deliveryCtes`) and answer each planned delivery with its configuration's
 * row, in the envelopes' order, then the configurations'; and the ledger entries whose leaf the
 * statement left to the caller (`missing_leaf`, when `ctes` write the trail).
 */
export async function planned(
  db: Knex | Knex.Transaction,
  b: Bindings,
  ctes: string[],
  parts: Part[],
): Promise<{ deliveries: PlannedDelivery[]; missingLeaves: string[] }> {
  // The statement's snapshot predates its own inserts: a delivery found here was recorded by an earlier try.
  type Row = Partial<StoredWebhook> & {
    missing_leaves: string[];
    part: number | null;
    delivery_id: string | null;
    delivery_status: string | null;
    delivery_attempts: number | null;
    delivery_series: string | null | undefined;
  };
  const owed =
    parts.length > 0
      ? parts.map(({ hook }, i) => `SELECT ${i} AS part, ${hook}.* FROM ${hook}`).join(' UNION ALL ')
      : 'SELECT NULL::int AS part, NULL::text AS delivery_id, NULL::timestamptz AS created_at, NULL::text AS id WHERE false';
  const missing = ctes.some((c) => c.startsWith('missing_leaf ')) ? 'array(SELECT entry_id FROM missing_leaf)' : 'ARRAY[]::text[]';
  // One row even when nothing is owed: it carries the missing leaves.
  const { rows } = await db.raw<{ rows: Row[] }>(
    `WITH ${ctes.join(',\n')}
    SELECT m.missing_leaves, owed.*, d.status AS delivery_status, d.attempts AS delivery_attempts, d.series AS delivery_series
    FROM (SELECT ${missing} AS missing_leaves) AS m
    LEFT JOIN ((${owed}) AS owed LEFT JOIN webhook_deliveries d ON d.id = owed.delivery_id) ON true
    ORDER BY owed.part, owed.created_at, owed.id`,
    b.values as Knex.RawBinding[],
  );
  const deliveries = rows
    .filter((r) => r.delivery_id !== null && r.part !== null)
    .map(({ part, delivery_id, delivery_status, delivery_attempts, delivery_series, missing_leaves: _m, ...rest }) => {
      const webhook = rest as StoredWebhook;
      const i = part!;
      return {
        delivery: {
          id: delivery_id!,
          webhook_id: webhook.id,
          payment_id: parts[i].envelope.payment_id,
          event: parts[i].envelope.event,
          body: parts[i].body,
          status: (delivery_status ?? 'pending') as LoadedDelivery['delivery']['status'],
          attempts: delivery_attempts ?? 0,
          // Recorded by this statement (no row in its snapshot): the series its event starts.
          series: delivery_status === null ? ORIGINAL_SERIES : (delivery_series ?? null),
        },
        webhook,
      };
    });
  return { deliveries, missingLeaves: rows[0]?.missing_leaves ?? [] };
}

/** The deliveries alone (`npm run repair`). */
export async function planDeliveries(
  db: Knex,
  scope: Scope,
  envelopes: TransitionEnvelope[],
  version: number,
): Promise<{ id: string; url: string; webhookId: string }[]> {
  const b = new Bindings();
  const { ctes, parts } = deliveryCtes(b, scope, envelopes, version);
  const { deliveries: rows } = await planned(db, b, ctes, parts);
  return rows.map((p) => ({ id: p.delivery.id, url: p.webhook.url, webhookId: p.webhook.id }));
}
