/**
 * The delivery log's attempts (docs/webhooks.md, "One road"): each attempt's row, the delivery's
 * count and status, and its custody trail leaf, written together so that every attempt gets a
 * number of its own and is logged once.
 */
import type { Knex } from 'knex';
import { webhookAttemptLeaf } from '../audit/trailLeaves.rules';
import { attemptErrorCode } from './deliveryAttempt.rules';
import { LEAF_COLUMNS } from '../audit/trail.repository';
import { Bindings, leafValues } from '../platform/database/statement';
import type { DeliveryRow } from './webhookDeliveries.repository';

export interface AttemptRecord {
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first 1 KB of the receiver's answer. */
  excerpt?: string | null;
}

/**
 * The delivery an attempt is for, and its configuration's account and mode (for the trail's leaf);
 * with `attempts`, the count its attempt read when it began.
 */
interface AttemptTarget {
  delivery: Pick<DeliveryRow, 'id' | 'payment_id' | 'event' | 'webhook_id'> & { attempts?: number };
  webhook: { account_id: string; livemode: boolean };
}

/**
 * Log one attempt as the delivery's next number, leave its status (a final one ends the series) and
 * append the attempt's custody trail leaf: whatever runs concurrently, each attempt gets a number of
 * its own and is logged once, never dropped. `atLeast`: the attempt's number in its series as
 * Temporal counts it, after the attempts before the series. Answers the attempt's number.
 *
 * One statement, which writes only while the delivery's count is the one it was given: first the
 * count the attempt read as it began (the usual case), else the count read again in a transaction
 * holding the row.
 */
export async function recordAttempt(
  db: Knex,
  target: AttemptTarget,
  a: AttemptRecord,
  status: DeliveryRow['status'],
  atLeast = 1,
): Promise<number> {
  const read = target.delivery.attempts;
  if (read !== undefined) {
    const attempt = Math.max(read + 1, atLeast);
    if ((await db.raw<{ rowCount: number }>(...attemptStatement(target, a, status, attempt, read))).rowCount === 1) return attempt;
  }
  return db.transaction(async (trx) => {
    const row = await trx<DeliveryRow>('webhook_deliveries').where({ id: target.delivery.id }).forUpdate().first('attempts');
    if (!row) throw new Error(`delivery ${target.delivery.id} is not in the log: its attempt cannot be logged`);
    // The series' own number (the Temporal UI's) unless the log is past it already.
    const attempt = Math.max(row.attempts + 1, atLeast);
    await trx.raw(...attemptStatement(target, a, status, attempt, row.attempts));
    return attempt;
  });
}

/**
 * The attempt's row, the delivery's count and status, and the trail's leaf in one statement,
 * written only while the delivery's count is still `counted`: once it has moved on, the delivery's
 * update finds no row, and the attempt and the leaf, written from its rows, are not written either.
 */
function attemptStatement(
  { delivery, webhook }: AttemptTarget,
  a: AttemptRecord,
  status: DeliveryRow['status'],
  attempt: number,
  counted: number,
): [string, Knex.RawBinding[]] {
  const leaf = webhookAttemptLeaf({
    deliveryId: delivery.id,
    webhookId: delivery.webhook_id,
    paymentId: delivery.payment_id,
    accountId: webhook.account_id,
    livemode: webhook.livemode,
    event: delivery.event,
    attempt,
    at: a.at,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    // A code: the text may name the receiver's host, and the trail is never erased.
    error: attemptErrorCode(a.statusCode, a.error),
    outcome: status,
  });
  const b = new Bindings();
  // Bound in the order the statement names them; typed, as a SELECT gives PostgreSQL no column to infer from.
  const sql = `WITH delivery AS (
        UPDATE webhook_deliveries SET status = ${b.add(status)}, attempts = ${b.add(attempt)}, updated_at = ${b.add(new Date())},
          series = CASE WHEN ${b.add(status)} = 'pending' THEN series END
        WHERE id = ${b.add(delivery.id)} AND attempts = ${b.add(counted)} RETURNING id
      ), attempt AS (
        INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt)
        SELECT ${b.add(delivery.id, 'text')}, ${b.add(attempt, 'integer')}, ${b.add(a.at, 'timestamptz')}, ${b.add(a.statusCode, 'integer')},
          ${b.add(a.durationMs, 'integer')}, ${b.add(a.error, 'text')}, ${b.add(a.excerpt ?? null, 'text')} FROM delivery
        RETURNING 1
      )
      INSERT INTO audit_leaves (${LEAF_COLUMNS.map(([c]) => c).join(', ')})
      SELECT ${leafValues(b, leaf)} FROM delivery`;
  return [sql, b.values as Knex.RawBinding[]];
}
