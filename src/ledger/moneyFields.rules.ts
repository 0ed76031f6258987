/**
 * Where money crosses text (docs/money.md, "Integers end to end"): bigint inside, decimal text in
 * JSON. A field holds money when its name ends in `Minor`, or when it is one of a movement's four
 * (`HistoryEntry.movement`, a milestone change's `movement`).
 */

const MOVEMENT_FIELDS = new Set(['deposited', 'refunded', 'released', 'fee']);

/** A client's own keys and values (a run started with its personal fields, as recorded before): never money. */
const CLIENT_MAPS = new Set(['metadata']);

const isMoney = (key: string, inMovement: boolean) => key.endsWith('Minor') || (inMovement && MOVEMENT_FIELDS.has(key));

/** An integer as JSON wrote it: anything else stays as it is, never a throw inside a workflow. */
const integerText = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v));

function walk(value: unknown, inMovement: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, false));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (CLIENT_MAPS.has(key)) out[key] = v;
    else out[key] = isMoney(key, inMovement) && integerText(v) ? BigInt(v as string | number) : walk(v, key === 'movement');
  }
  return out;
}

/**
 * The value with every money field as bigint: for what reaches the code as JSON with money as text
 * (a history recorded before Temporal's payloads carried bigint, a message typed in the Temporal UI,
 * a JSON column of PostgreSQL). A value already holding bigint comes back equal.
 */
export function withBigintMoney<T>(value: T): T {
  return walk(value, false) as T;
}

/** JSON text of a value holding bigint money: each as its decimal text, as the JSON columns keep it. */
export function moneyJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
