import type { Knex } from 'knex';

/** A page of a list, newest first (Stripe's cursors: `starting_after` pages on, `ending_before` back). */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

export type Page<R> = { rows: R[]; hasMore: boolean } | { cursorNotFound: 'starting_after' | 'ending_before' };

/**
 * Keyset pagination over (created_at, id), newest first. `scoped` selects the caller's rows (the
 * cursor must be one of them); `filtered` adds the list's filters. `has_more`: more rows lie beyond
 * this page in the direction of travel.
 */
export async function pageOf<R extends { created_at: Date; id: string }>(
  scoped: () => Knex.QueryBuilder,
  filtered: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  req: PageRequest,
): Promise<Page<R>> {
  const q = filtered(scoped());
  const cursorId = req.startingAfter ?? req.endingBefore;
  const backwards = req.startingAfter === undefined && req.endingBefore !== undefined;
  if (cursorId !== undefined) {
    const cursor = (await scoped().select('created_at', 'id').where({ id: cursorId }).first()) as
      { created_at: Date; id: string } | undefined;
    if (!cursor) return { cursorNotFound: backwards ? 'ending_before' : 'starting_after' };
    const [op, tie] = backwards ? ['>', '>'] : ['<', '<'];
    q.andWhere((w) =>
      w.where('created_at', op, cursor.created_at).orWhere((o) => o.where('created_at', cursor.created_at).andWhere('id', tie, cursor.id)),
    );
  }
  const order = backwards ? 'asc' : 'desc';
  const rows = (await q
    .orderBy([
      { column: 'created_at', order },
      { column: 'id', order },
    ])
    .limit(req.limit + 1)) as R[];
  const page = rows.slice(0, req.limit);
  return { rows: backwards ? page.reverse() : page, hasMore: rows.length > req.limit };
}
