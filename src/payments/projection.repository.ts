/**
 * A transition's projection as one SQL statement (data-modifying CTEs): the read model's row, the
 * history entry, its events, the ledger entry with its postings and balances, and, for the workflow's
 * publication, the custody trail's leaves and the deliveries the events owe. One statement is one
 * round trip and atomic on its own, where a statement per table would be about a dozen
 * (docs/benchmarks.md).
 *
 * Two writers, one trail writer: the API's write-through (`projectReadModel`, so that a read right
 * after an answer shows it) writes everything but the trail; the workflow's (`projectAndPlan`, in the
 * publication activity) writes the trail's leaves too, so that in the compose topology the API's database role
 * needs no write on the trail (docs/security.md). A transition's leaf is the workflow's alone; a
 * ledger entry's leaf is written with the entry when the worker writes the entry, or, when the API
 * wrote it first, by the worker's statement when it sees the entry with the postings it computed,
 * else right after from the stored postings (`appendStoredEntryLeaves`,
 * ./projectionLedger.ts): once per entry either way.
 *
 * The rules are those of each repository (src/payments/payments.repository.ts, ledger.ts, events.ts, audit.ts),
 * kept here in SQL with the deliveries' own (./deliveryPlan.ts: one per subscribed, active
 * configuration, its id derived): every row is idempotent by its natural key, the row only moves to
 * a higher version, and the ledger's postings, balances and leaf are written only by the statement
 * that wrote the entry, so a retried or concurrent projection never moves a balance twice.
 *
 * `ON CONFLICT DO NOTHING` names no constraint on purpose: a named one is the only arbiter, and a
 * concurrent writer's row then fails the table's other unique index (events and ledger entries have
 * two) with a unique violation instead of being skipped. The API and the workflow write every
 * transition at the same moment, so that race is common (test/projection.test.ts).
 *
 * Lock order: every writer of a projection goes through `projectionCtes`, so every writer takes the
 * same rows in the same order (PostgreSQL runs the CTEs in an order fixed by the statement's shape)
 * and two writers never wait on each other crosswise. The availability step of a release to
 * recipients follows in a transaction of its own (`makeReleasesAvailable`): it takes the recipient's
 * row, then its balances, as the verification does.
 */
import type { Knex } from 'knex';
import { type AuditLeaf, ledgerEntryLeaf, transitionLeaf } from '../audit/trailLeaves.rules';
import { LEAF_COLUMNS } from '../audit/trail.repository';
import { Bindings, leafValues } from '../platform/database/statement';
import { entryTypeOf, postingsOfTransfers, transfersOf } from '../ledger/ledger.rules';
import { type EntryToPost, entryId, ledgerCtes, paymentEntryKey } from '../ledger/transfers.repository';
import type { HistoryEntry } from './paymentTypes.rules';
import type { PaymentDetails } from './paymentRecord.rules';
import { ledgerMovements } from './milestones.rules';
import { paymentView } from './payment.view';
import { isReasonHash, leafReason } from './personalData.rules';
import { emittedEvents } from './transitionEvents.rules';
import type { TransitionEnvelope } from '../webhooks/webhookEnvelope.view';
import { eventId } from '../webhooks/events.repository';
import { PAYMENT_COLUMNS, PAYMENT_PROJECTED_COLUMNS, toRow } from './payments.repository';
import { type PlannedDelivery, deliveryCtes, planned } from '../webhooks/deliveryPlan.repository';
import { appendStoredEntryLeaves, creditedRecipient, makeReleasesAvailable, postingsSignature } from '../ledger/paymentPostings.repository';

/**
 * The CTEs that write the projection of one history entry; with `trail`, the custody trail's leaves
 * too, and `missing_leaf`: the ledger entries of this transition whose leaf is neither written by
 * this statement nor seen in its snapshot (another writer's entry committed during the statement, or
 * with other postings), for the caller to append from what is stored.
 */
function projectionCtes(b: Bindings, state: PaymentDetails, entry: HistoryEntry, reasonKey: Buffer, trail: boolean): string[] {
  // A client's reason crosses Temporal as its keyed hash; the text is the one the API kept for it.
  // A function: bindings are added in the order the text reads (src/platform/database/statement.ts).
  const reason = () =>
    isReasonHash(entry.reason)
      ? `coalesce((SELECT reason FROM payment_reasons WHERE payment_id = ${b.add(state.id, 'text')} AND reason_hash = ${b.add(
          entry.reason,
          'text',
        )}), ${b.add(entry.reason, 'text')})`
      : b.add(entry.reason, 'text');
  const row = toRow(state);
  const ctes = [
    `payment AS (
      INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${b.list(PAYMENT_COLUMNS.map((c) => row[c]))})
      ON CONFLICT (id) DO UPDATE SET ${PAYMENT_PROJECTED_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
      -- Only durable states are written, so the same version is the same state (src/payments/payments.repository.ts).
      WHERE payments.version <= excluded.version
      RETURNING 1)`,
    `history AS (
      INSERT INTO payment_events (payment_id, seq, action, from_status, to_status, event, actor, reason, at, milestone_id)
      VALUES (${b.list([state.id, entry.seq, entry.action, entry.from, entry.to, entry.event, entry.actor])}, ${reason()}, ${b.add(new Date(entry.at))}, ${b.add(entry.milestoneId ?? null, 'text')})
      ON CONFLICT DO NOTHING RETURNING 1)`,
    // The entry's events in order (a split's refunded part before its release: src/payments/transitionEvents.rules.ts).
    `event AS (
      INSERT INTO events (id, account_id, livemode, payment_id, type, sequence, ordinal, data, created_at, milestone_id)
      VALUES ${emittedEvents(state, entry)
        .map(
          (e) => `(${b.add(eventId(state.id, entry.seq, e.ordinal), 'text')}, ${b.add(state.accountId, 'text')},
        ${b.add(state.livemode, 'boolean')}, ${b.add(state.id, 'text')}, ${b.add(e.event, 'text')}, ${b.add(entry.seq, 'integer')},
        ${b.add(e.ordinal, 'smallint')}, ${b.add(JSON.stringify(paymentView(e.state)), 'jsonb')}, ${b.add(new Date(entry.at), 'timestamptz')},
        ${b.add(e.milestoneId ?? null, 'text')})`,
        )
        .join(', ')}
      ON CONFLICT DO NOTHING RETURNING 1)`,
  ];
  // A leaf is never erased: its reason is a keyed hash, never the text (docs/audit.md).
  const leaves: { leaf: AuditLeaf; entryId: string | null; postings: string | null }[] = [
    { leaf: transitionLeaf(state, { ...entry, reason: leafReason(reasonKey, entry.reason) }), entryId: null, postings: null },
  ];
  const exponent = state.amountExponent;
  const entries = ledgerMovements(state, entry).map(({ milestoneId, movement }) => {
    const recipientId = creditedRecipient(state, milestoneId, movement.released);
    const transfers = transfersOf(movement, { paymentId: state.id, recipientId });
    const post: EntryToPost = {
      key: paymentEntryKey(state.id, entry.seq, state.staged ? milestoneId : undefined),
      code: entryTypeOf(movement),
      paymentId: state.id,
      milestoneId,
      recipientId: recipientId ?? null,
      version: entry.seq,
      accountId: state.accountId,
      livemode: state.livemode,
      currency: state.currency,
      exponent,
      at: new Date(entry.at),
      transfers,
    };
    return { post, id: entryId(post.key), milestoneId, type: post.code, recipientId, postings: postingsOfTransfers(transfers) };
  });
  if (entries.length > 0) {
    // The ledger's one writer (src/ledger/transfers.repository.ts), in this statement.
    ctes.push(
      ...ledgerCtes(
        b,
        entries.map((e) => e.post),
      ),
    );
    for (const e of entries) {
      leaves.push({
        leaf: ledgerEntryLeaf({
          entryId: e.id,
          paymentId: state.id,
          accountId: state.accountId,
          livemode: state.livemode,
          version: entry.seq,
          type: e.type,
          currency: state.currency,
          exponent,
          at: entry.at,
          postings: e.postings.map(({ account, amount }) => ({ account, amount })),
          ...(state.staged ? { milestoneId: e.milestoneId } : {}),
          ...(e.recipientId ? { recipientId: e.recipientId } : {}),
        }),
        entryId: e.id,
        postings: postingsSignature(e.postings),
      });
    }
  }
  if (!trail) return ctes;
  const leafRows = leaves
    .map(({ leaf, entryId, postings }, i) => `(${i}, ${leafValues(b, leaf)}, ${b.add(entryId, 'text')}, ${b.add(postings, 'text')})`)
    .join(', ');
  const columns = LEAF_COLUMNS.map(([c]) => c).join(', ');
  ctes.push(`leaf_row AS (SELECT * FROM (VALUES ${leafRows}) AS l(ord, ${columns}, entry_id, postings))`);
  // The custody trail (docs/audit.md): the transition's leaf, and each ledger entry's when this statement
  // wrote the entry or sees it stored with the same postings (the API's write-through wrote it first).
  const stored = `EXISTS (SELECT 1 FROM ledger_entries e WHERE e.id = l.entry_id AND l.postings = (
      SELECT string_agg(p.ledger_account || ':' || p.amount_minor::text, ',' ORDER BY (p.ledger_account || ':' || p.amount_minor::text) COLLATE "C")
      FROM ledger_postings p WHERE p.entry_id = l.entry_id))`;
  ctes.push(`leaves AS (
    INSERT INTO audit_leaves (${columns})
    SELECT ${LEAF_COLUMNS.map(([c]) => `l.${c}`).join(', ')}
    FROM leaf_row l
    WHERE l.entry_id IS NULL${entries.length > 0 ? ` OR EXISTS (SELECT 1 FROM ledger_entry WHERE ledger_entry.id = l.entry_id) OR ${stored}` : ''}
    ORDER BY l.ord
    ON CONFLICT DO NOTHING RETURNING entry_key)`);
  ctes.push(`missing_leaf AS (
    SELECT l.entry_id FROM leaf_row l
    WHERE l.entry_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM leaves WHERE leaves.entry_key = l.entry_key)
      AND NOT EXISTS (SELECT 1 FROM audit_leaves a WHERE a.entry_key = l.entry_key))`);
  return ctes;
}

/** The statement's answer when it has no deliveries to plan: the ledger entries whose leaf it left to the caller. */
const MISSING_LEAVES = `SELECT array(SELECT entry_id FROM missing_leaf) AS missing_leaves`;
const NO_MISSING_LEAVES = `SELECT ARRAY[]::text[] AS missing_leaves`;

/**
 * The projection without deliveries to plan, with the custody trail (`trail`) or without it; then the
 * availability step of its releases to recipients (docs/money.md), in a transaction of its own.
 */
async function project(db: Knex, payment: PaymentDetails, entry: HistoryEntry, reasonKey: Buffer, trail: boolean): Promise<void> {
  const b = new Bindings();
  const ctes = projectionCtes(b, payment, entry, reasonKey, trail);
  const answer = !trail ? 'SELECT 1' : ctes.some((c) => c.startsWith('missing_leaf ')) ? MISSING_LEAVES : NO_MISSING_LEAVES;
  const { rows } = await db.raw<{ rows: { missing_leaves?: string[] }[] }>(
    `WITH ${ctes.join(',\n')}\n${answer}`,
    b.values as Knex.RawBinding[],
  );
  if (trail) await appendStoredEntryLeaves(db, payment, entry, rows[0]?.missing_leaves ?? []);
  await makeReleasesAvailable(db, payment, entry);
}

/**
 * Project a payment and one history entry into the read model, history, events, ledger and trail:
 * the workflow's projection (`projectAndPlan`) without deliveries to plan. Idempotent and monotonic
 * (see above).
 */
export const projectPayment = (db: Knex, payment: PaymentDetails, entry: HistoryEntry, reasonKey: Buffer) =>
  project(db, payment, entry, reasonKey, true);

/**
 * The API's write-through: the same projection without the custody trail, whose only writers are the
 * workers (docs/audit.md). Idempotent and monotonic; the workflow's projection follows.
 */
export const projectReadModel = (db: Knex, payment: PaymentDetails, entry: HistoryEntry, reasonKey: Buffer) =>
  project(db, payment, entry, reasonKey, false);

/** The projection, and the deliveries its events owe (`deliveryCtes`, the envelopes in order), in the same statement. */
export async function projectAndPlan(
  db: Knex,
  payment: PaymentDetails,
  entry: HistoryEntry,
  envelopes: TransitionEnvelope[],
  reasonKey: Buffer,
): Promise<PlannedDelivery[]> {
  const b = new Bindings();
  const projection = projectionCtes(b, payment, entry, reasonKey, true);
  const { ctes, parts } = deliveryCtes(b, payment, envelopes, payment.version);
  const { deliveries, missingLeaves } = await planned(db, b, [...projection, ...ctes], parts);
  await appendStoredEntryLeaves(db, payment, entry, missingLeaves);
  await makeReleasesAvailable(db, payment, entry);
  return deliveries;
}
