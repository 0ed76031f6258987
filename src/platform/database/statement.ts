/**
 * A statement built from parts (src/payments/projection.repository.ts, the attempt's record in attemptLog.ts):
 * its bound values in order, and a custody trail leaf's row as values.
 */
import type { AuditLeaf } from '../../audit/trailLeaves.rules';
import { LEAF_COLUMNS, leafRow } from '../../audit/trail.repository';

/**
 * Parameters in order, written as `?` where they are used: text must be built in the order it reads,
 * since the n-th `?` is the n-th value added.
 */
export class Bindings {
  readonly values: unknown[] = [];
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return cast ? `?::${cast}` : '?';
  }
  list(values: unknown[]): string {
    return values.map((v) => this.add(v)).join(', ');
  }
}

/** A leaf's row as bound values with their types, in `LEAF_COLUMNS` order (src/audit/trail.repository.ts). */
export function leafValues(b: Bindings, leaf: AuditLeaf): string {
  const row = leafRow(leaf);
  return LEAF_COLUMNS.map(([c, type]) => b.add(row[c], type)).join(', ');
}
