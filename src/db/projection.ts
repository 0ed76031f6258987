/**
 * A transition's projection as one SQL statement (data-modifying CTEs): the read model's row, the
 * history entry, the event, the ledger entry with its postings and balances, the custody trail's
 * leaves and, for the workflow's publication, the deliveries the event owes. One statement is one
 * round trip and atomic on its own; it replaced about a dozen (docs/benchmarks.md).
 *
 * The rules are those of each repository (src/db/payments.ts, ledger.ts, events.ts, audit.ts),
 * kept here in SQL with the deliveries' own (one per subscribed, active configuration, its id
 * derived): every row is idempotent by its natural key, the row only moves to a higher version,
 * and the ledger's postings, balances and leaf are written only by the statement that wrote the
 * entry, so a retried or concurrent projection never moves a balance twice.
 *
 * `ON CONFLICT DO NOTHING` names no constraint on purpose: a named one is the only arbiter, and a
 * concurrent writer's row then fails the table's other unique index (events and ledger entries have
 * two) with a unique violation instead of being skipped. The API and the workflow write every
 * transition at the same moment, so that race is common (test/projection.test.ts).
 *
 * Lock order: every writer of a projection goes through `projectionCtes`, so every writer takes the
 * same rows in the same order (PostgreSQL runs the CTEs in an order fixed by the statement's shape)
 * and two writers never wait on each other crosswise. A caller must not lock a payment's or a
 * balance's row itself before projecting inside its own transaction.
 */
import type { Knex } from 'knex';
import { ledgerEntryLeaf, transitionLeaf } from '../domain/audit';
import { LEAF_COLUMNS } from './audit';
import { Bindings, leafValues } from './statement';
import { entryTypeOf, postingsOf } from '../domain/ledger';
import { storedExponent } from '../domain/money';
import { type HistoryEntry, type PaymentState, movementOf, withAmounts } from '../domain/payment';
import { paymentView } from '../domain/paymentView';
import type { Scope } from '../domain/tenancy';
import type { Envelope } from '../domain/webhookEnvelope';
import { eventId } from './events';
import { ledgerEntryId } from './ledger';
import { PAYMENT_COLUMNS, PAYMENT_PROJECTED_COLUMNS, toRow } from './payments';
import type { StoredWebhook } from './webhookConfigurations';
import type { LoadedDelivery } from './webhookDeliveries';

/**
 * A delivery the publication recorded, as an attempt needs it, with its configuration's row. Status
 * and attempts are `pending` and 0 for a delivery this statement recorded; a retried publication
 * finds its earlier attempts.
 */
export interface PlannedDelivery {
  delivery: LoadedDelivery['delivery'];
  webhook: StoredWebhook;
}

/** The CTEs that write the projection of one history entry. */
function projectionCtes(b: Bindings, payment: PaymentState, entry: HistoryEntry): string[] {
  const state = withAmounts(payment);
  const row = { ...toRow(state), metadata: JSON.stringify(state.metadata) } as Record<string, unknown>;
  const ctes = [
    `payment AS (
      INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${b.list(PAYMENT_COLUMNS.map((c) => row[c]))})
      ON CONFLICT (id) DO UPDATE SET ${PAYMENT_PROJECTED_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
      -- Only durable states are written, so the same version is the same state (src/db/payments.ts).
      WHERE payments.version <= excluded.version
      RETURNING 1)`,
    `history AS (
      INSERT INTO payment_events (payment_id, seq, action, from_status, to_status, event, actor, reason, at)
      VALUES (${b.list([state.id, entry.seq, entry.action, entry.from, entry.to, entry.event, entry.actor, entry.reason, new Date(entry.at)])})
      ON CONFLICT DO NOTHING RETURNING 1)`,
    `event AS (
      INSERT INTO events (id, account_id, livemode, payment_id, type, sequence, data, created_at)
      VALUES (${b.list([eventId(state.id, entry.seq), state.accountId, state.livemode, state.id, entry.event, entry.seq])},
        ${b.add(JSON.stringify(paymentView(state)), 'jsonb')}, ${b.add(new Date(entry.at))})
      ON CONFLICT DO NOTHING RETURNING 1)`,
  ];
  const leaves = [{ leaf: transitionLeaf(state, entry), ofLedgerEntry: false }];
  if (entry.movement) {
    const movement = movementOf(entry.movement);
    const postings = postingsOf(movement);
    const id = ledgerEntryId(state.id, entry.seq);
    const exponent = storedExponent(state);
    const type = entryTypeOf(movement);
    ctes.push(`ledger_entry AS (
        INSERT INTO ledger_entries (id, payment_id, version, account_id, livemode, currency, exponent, type, created_at)
        VALUES (${b.list([id, state.id, entry.seq, state.accountId, state.livemode, state.currency, exponent, type, new Date(entry.at)])})
        ON CONFLICT DO NOTHING RETURNING id)`);
    // In LEDGER_ACCOUNTS order (postingsOf's), the same for every writer, so that balance rows are never taken crosswise.
    const postingRows = postings.map((p, i) => `(${b.add(p.account, 'text')}, ${b.add(p.amount.toString(), 'bigint')}, ${i})`).join(', ');
    ctes.push(
      `posting AS (SELECT * FROM (VALUES ${postingRows}) AS p(account, amount, ord))`,
      `postings AS (
        INSERT INTO ledger_postings (entry_id, ledger_account, amount_minor)
        SELECT ledger_entry.id, posting.account, posting.amount FROM ledger_entry, posting ORDER BY posting.ord
        RETURNING 1)`,
      `balances AS (
        INSERT INTO ledger_balances (account_id, livemode, currency, exponent, ledger_account, balance_minor)
        SELECT ${b.add(state.accountId, 'text')}, ${b.add(state.livemode, 'boolean')}, ${b.add(state.currency, 'text')},
          ${b.add(exponent, 'smallint')}, posting.account, posting.amount
        FROM ledger_entry, posting ORDER BY posting.ord
        ON CONFLICT (account_id, livemode, currency, exponent, ledger_account)
        DO UPDATE SET balance_minor = ledger_balances.balance_minor + excluded.balance_minor
        RETURNING 1)`,
    );
    leaves.push({
      leaf: ledgerEntryLeaf({
        entryId: id,
        paymentId: state.id,
        accountId: state.accountId,
        livemode: state.livemode,
        version: entry.seq,
        type,
        currency: state.currency,
        exponent,
        at: entry.at,
        postings,
      }),
      ofLedgerEntry: true,
    });
  }
  const leafRows = leaves.map(({ leaf, ofLedgerEntry }, i) => `(${i}, ${leafValues(b, leaf)}, ${ofLedgerEntry})`).join(', ');
  const columns = LEAF_COLUMNS.map(([c]) => c).join(', ');
  // The custody trail (docs/audit.md): the transition's leaf, and the ledger entry's when this statement wrote the entry.
  ctes.push(`leaves AS (
    INSERT INTO audit_leaves (${columns})
    SELECT ${LEAF_COLUMNS.map(([c]) => `l.${c}`).join(', ')}
    FROM (VALUES ${leafRows}) AS l(ord, ${columns}, of_ledger_entry)
    WHERE NOT l.of_ledger_entry${entry.movement ? ' OR EXISTS (SELECT 1 FROM ledger_entry)' : ''}
    ORDER BY l.ord
    ON CONFLICT DO NOTHING RETURNING 1)`);
  return ctes;
}

/**
 * Project a payment and one history entry into the read model, history, events, ledger and trail.
 * Idempotent and monotonic (see above); inside the caller's transaction when it has one.
 */
export async function projectPayment(db: Knex | Knex.Transaction, payment: PaymentState, entry: HistoryEntry): Promise<void> {
  const b = new Bindings();
  const ctes = projectionCtes(b, payment, entry);
  await db.raw(`WITH ${ctes.join(',\n')}\nSELECT 1`, b.values as Knex.RawBinding[]);
}

/** A delivery id: this prefix and the first hex characters of SHA-256 of `payment|version|configuration`. */
const DELIVERY_ID_PREFIX = 'dlv_';
const DELIVERY_ID_HEX_CHARS = 26;

/**
 * The CTEs that record one delivery of the envelope per subscribed, active configuration (`hook`,
 * `planned`). The id is derived from the payment, its version and the configuration, so a retry
 * never records one twice.
 */
function deliveryCtes(b: Bindings, scope: Scope, envelope: Envelope, version: number, body: string): string[] {
  return [
    `hook AS (
      SELECT w.*, ${b.add(DELIVERY_ID_PREFIX, 'text')} || substr(encode(sha256(convert_to(${b.add(
        `${envelope.payment_id}|${version}|`,
        'text',
      )} || w.id, 'UTF8')), 'hex'), 1, ${DELIVERY_ID_HEX_CHARS}) AS delivery_id
      FROM webhooks w
      WHERE w.account_id = ${b.add(scope.accountId)} AND w.livemode = ${b.add(scope.livemode)}
        AND w.deleted_at IS NULL AND w.active AND w.events @> ARRAY[${b.add(envelope.event, 'text')}])`,
    `planned AS (
      INSERT INTO webhook_deliveries (id, webhook_id, payment_id, event, body)
      SELECT hook.delivery_id, hook.id, ${b.add(envelope.payment_id, 'text')}, ${b.add(envelope.event, 'text')}, ${b.add(body, 'text')}
      FROM hook ORDER BY hook.created_at, hook.id
      ON CONFLICT DO NOTHING RETURNING 1)`,
  ];
}

/** Run `ctes` (ending with `deliveryCtes`) and answer each planned delivery with its configuration's row. */
async function planned(
  db: Knex | Knex.Transaction,
  b: Bindings,
  ctes: string[],
  envelope: Envelope,
  body: string,
): Promise<PlannedDelivery[]> {
  // The statement's snapshot predates its own inserts: a delivery found here was recorded by an earlier try.
  type Row = StoredWebhook & { delivery_id: string; delivery_status: string | null; delivery_attempts: number | null };
  const { rows } = await db.raw<{ rows: Row[] }>(
    `WITH ${ctes.join(',\n')}
    SELECT hook.*, d.status AS delivery_status, d.attempts AS delivery_attempts
    FROM hook LEFT JOIN webhook_deliveries d ON d.id = hook.delivery_id
    ORDER BY hook.created_at, hook.id`,
    b.values as Knex.RawBinding[],
  );
  return rows.map(({ delivery_id, delivery_status, delivery_attempts, ...webhook }) => ({
    delivery: {
      id: delivery_id,
      webhook_id: webhook.id,
      payment_id: envelope.payment_id,
      event: envelope.event,
      body,
      status: (delivery_status ?? 'pending') as LoadedDelivery['delivery']['status'],
      attempts: delivery_attempts ?? 0,
    },
    webhook,
  }));
}

/** The projection, and the deliveries the event owes (`deliveryCtes`), in the same statement. */
export async function projectAndPlan(
  db: Knex | Knex.Transaction,
  payment: PaymentState,
  entry: HistoryEntry,
  envelope: Envelope,
): Promise<PlannedDelivery[]> {
  const b = new Bindings();
  const body = JSON.stringify(envelope);
  const ctes = [...projectionCtes(b, payment, entry), ...deliveryCtes(b, payment, envelope, payment.version, body)];
  return planned(db, b, ctes, envelope, body);
}

/** The deliveries alone (`npm run repair`, and runs recorded before side effects were activities). */
export async function planDeliveries(
  db: Knex,
  scope: Scope,
  envelope: Envelope,
  version: number,
): Promise<{ id: string; url: string; webhookId: string }[]> {
  const b = new Bindings();
  const body = JSON.stringify(envelope);
  const rows = await planned(db, b, deliveryCtes(b, scope, envelope, version, body), envelope, body);
  return rows.map((p) => ({ id: p.delivery.id, url: p.webhook.url, webhookId: p.webhook.id }));
}
