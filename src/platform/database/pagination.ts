/** Keyset pagination shared by every list: cursors, page size and the created range. */
import type { Knex } from 'knex';

/** A page of a list, newest first (Stripe's cursors: `starting_after` pages on, `ending_before` back). */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

/** A list's common filter: when items were created. */
export interface CreatedRange {
  createdGte?: Date;
  createdLte?: Date;
}

export function withinCreated(q: Knex.QueryBuilder, range: CreatedRange): Knex.QueryBuilder {
  if (range.createdGte) q.andWhere('created_at', '>=', range.createdGte);
  if (range.createdLte) q.andWhere('created_at', '<=', range.createdLte);
  return q;
}

export type Page<R> = { rows: R[]; hasMore: boolean } | { cursorNotFound: 'starting_after' | 'ending_before' };

/**
 * Keyset pagination over (created_at, id), newest first. `scoped` selects the caller's rows (the
 * cursor must be one of them); `filtered` adds the list's filters. `has_more`: more rows lie beyond
 * this page in the direction of travel. `tiebreak` orders rows created at the same moment before
 * their id does (events: one version's events, src/webhooks/events.repository.ts).
 */
export async function pageOf<R extends { created_at: Date; id: string }>(
  table: string,
  scoped: () => Knex.QueryBuilder,
  filtered: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  req: PageRequest,
  tiebreak?: string,
): Promise<Page<R>> {
  const key = ['created_at', ...(tiebreak ? [tiebreak] : []), 'id'];
  const q = filtered(scoped());
  const cursorId = req.startingAfter ?? req.endingBefore;
  const backwards = req.startingAfter === undefined && req.endingBefore !== undefined;
  if (cursorId !== undefined) {
    const cursor = (await scoped().select('id').where({ id: cursorId }).first()) as { id: string } | undefined;
    if (!cursor) return { cursorNotFound: backwards ? 'ending_before' : 'starting_after' };
    // Compared in SQL: timestamps keep their microseconds there, which a JavaScript Date would drop.
    q.andWhereRaw(`(${key.join(', ')}) ${backwards ? '>' : '<'} (select ${key.join(', ')} from ?? where id = ?)`, [table, cursor.id]);
  }
  const order = backwards ? 'asc' : 'desc';
  const rows = (await q.orderBy(key.map((column) => ({ column, order }))).limit(req.limit + 1)) as R[];
  const page = rows.slice(0, req.limit);
  return { rows: backwards ? page.reverse() : page, hasMore: rows.length > req.limit };
}
