/** The bytes the custody trail hashes and signs: canonical JSON and a tree head's message. Pure. */

/**
 * Canonical JSON, the bytes a leaf and a tree head are hashed and signed as: object keys sorted by
 * UTF-16 code units, no insignificant whitespace, strings escaped as JSON.stringify does, and
 * numbers only as integers (money in integer minor units; a bigint is written as its digits). For
 * this integer-only subset it is RFC 8785 (JCS). A fraction, NaN or an unsafe integer throws.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`canonical JSON holds integers only, got ${value}`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/** A signed tree head's fields, as the API shows them (byte strings in standard base64). */
export interface TreeHead {
  tree_size: number;
  root_hash: string;
  timestamp: string;
}

/** The exact bytes an Ed25519 tree-head signature covers: `{"root_hash":…,"timestamp":…,"tree_size":…}`. */
export function treeHeadMessage(head: TreeHead): Buffer {
  return Buffer.from(canonicalJson({ root_hash: head.root_hash, timestamp: head.timestamp, tree_size: head.tree_size }), 'utf8');
}
