/** Every list answer's envelope (the `…List` schemas of `*.schemas.ts` document it). */

/** One page of a list that pages (`limit`, `starting_after`, `ending_before`). */
export const listPage = <T>(page: { data: T[]; hasMore: boolean }) => ({
  object: 'list' as const,
  data: page.data,
  has_more: page.hasMore,
});

/** A list answered whole (a handful of items): `has_more` is always false. */
export const wholeList = <T>(data: T[]) => ({ object: 'list' as const, data, has_more: false as const });
