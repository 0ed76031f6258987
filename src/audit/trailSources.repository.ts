/**
 * Every custody-trail leaf against what it records (docs/audit.md): a ledger entry with its postings,
 * a transition in the payment's history, a delivery attempt in the delivery log. A leaf that none
 * of them accounts for was not written by the service (a forged insert) or its source was changed
 * since; `npm run audit:verify` reports it.
 */
import type { Knex } from 'knex';

/** A leaf accounted for by nothing, and why. */
export interface UnaccountedLeaf {
  leafIndex: number | null;
  kind: string;
  reason: string;
}

type Fields = Record<string, unknown>;
const text = (v: unknown): string => (v === undefined ? 'null' : v instanceof Date ? v.toISOString() : JSON.stringify(v));
/** Equal as text: a leaf's number and PostgreSQL's bigint string are one value. */
const same = (a: unknown, b: unknown) => text(a).replace(/"/g, '') === text(b).replace(/"/g, '');
const sameTime = (a: unknown, b: unknown) =>
  a !== null && b !== null && new Date(a as string).getTime() === new Date(b as string).getTime();

/** The first field of `pairs` whose two values differ, or undefined when all agree. */
function differs(pairs: [string, unknown, unknown][]): string | undefined {
  return pairs.find(([, a, b]) => !same(a, b))?.[0];
}

/** How `subject`'s leaf disagrees with its source: the first field that differs, else the time; undefined when they agree. */
function disagreement(subject: string, pairs: [string, unknown, unknown][], [leafAt, sourceAt]: [unknown, unknown]): string | undefined {
  const field = differs(pairs);
  if (field) return `${subject} has another ${field}`;
  return sameTime(leafAt, sourceAt) ? undefined : `${subject} has another time`;
}

/** Rows of `table` whose `column` is one of `ids`, by that column (or by `key` of each row). */
async function rowsBy(db: Knex, table: string, column: string, ids: unknown[], key: (r: Fields) => string = (r) => String(r[column])) {
  const rows = ids.length ? ((await db(table).whereIn(column, [...new Set(ids)] as string[])) as Fields[]) : [];
  const map = new Map<string, Fields[]>();
  for (const r of rows) map.set(key(r), [...(map.get(key(r)) ?? []), r]);
  return map;
}

async function checkBatch(db: Knex, leaves: { leafIndex: number | null; leaf: string }[]): Promise<UnaccountedLeaf[]> {
  const parsed = leaves.map((l) => ({ ...l, body: JSON.parse(l.leaf) as Fields }));
  const of = (kind: string, field: string) => parsed.filter((l) => l.body.kind === kind).map((l) => l.body[field]);
  const entries = await rowsBy(db, 'ledger_entries', 'id', of('ledger.entry', 'entry_id'));
  const postings = await rowsBy(db, 'ledger_postings', 'entry_id', of('ledger.entry', 'entry_id'));
  const paymentIds = of('payment.transition', 'payment_id');
  const payments = await rowsBy(db, 'payments', 'id', paymentIds);
  const history = await rowsBy(db, 'payment_events', 'payment_id', paymentIds, (r) => `${String(r.payment_id)}|${String(r.seq)}`);
  const deliveries = await rowsBy(db, 'webhook_deliveries', 'id', of('webhook.attempt', 'delivery_id'));
  const webhooks = await rowsBy(db, 'webhooks', 'id', of('webhook.attempt', 'webhook_id'));
  const attempts = await rowsBy(db, 'webhook_delivery_attempts', 'delivery_id', of('webhook.attempt', 'delivery_id'), (r) =>
    [r.delivery_id, r.attempt].map(String).join('|'),
  );

  const why = ({ body }: { body: Fields }): string | undefined => {
    switch (body.kind) {
      case 'ledger.entry': {
        const e = entries.get(String(body.entry_id))?.[0];
        if (!e) return `no ledger entry ${String(body.entry_id)}`;
        const field = differs([
          ['payment_id', body.payment_id, e.payment_id],
          ['account_id', body.account_id, e.account_id],
          ['livemode', body.livemode, e.livemode],
          ['version', body.version, e.version],
          ['type', body.type, e.type],
          ['currency', body.currency, e.currency],
          ['amount_exponent', body.amount_exponent, e.exponent],
          ...(body.milestone_id === undefined ? [] : [['milestone_id', body.milestone_id, e.milestone_id] as [string, unknown, unknown]]),
        ]);
        if (field) return `ledger entry ${String(body.entry_id)} has another ${field}`;
        const listed = (ps: { account: unknown; amount: unknown }[]) =>
          ps
            .map((p) => `${String(p.account)}:${String(p.amount)}`)
            .sort()
            .join(',');
        const leafPostings = (body.postings as Fields[]).map((p) => ({ account: p.ledger_account, amount: p.amount_minor }));
        const rows = (postings.get(String(body.entry_id)) ?? []).map((p) => ({ account: p.ledger_account, amount: p.amount_minor }));
        return listed(leafPostings) === listed(rows) ? undefined : `ledger entry ${String(body.entry_id)} has other postings`;
      }
      case 'payment.transition': {
        const p = payments.get(String(body.payment_id))?.[0];
        const h = history.get(`${String(body.payment_id)}|${String(body.version)}`)?.[0];
        const subject = `transition ${String(body.version)} of payment ${String(body.payment_id)}`;
        if (!p || !h) return `no ${subject}`;
        return disagreement(
          subject,
          [
            ['account_id', body.account_id, p.account_id],
            ['livemode', body.livemode, p.livemode],
            ['currency', body.currency, p.currency],
            ['amount_minor', body.amount_minor, p.amount_minor],
            ['action', body.action, h.action],
            ['from', body.from, h.from_status],
            ['to', body.to, h.to_status],
            ['event', body.event, h.event],
            ['actor', body.actor, h.actor],
          ],
          [body.at, h.at],
        );
      }
      case 'webhook.attempt': {
        const d = deliveries.get(String(body.delivery_id))?.[0];
        const a = attempts.get(`${String(body.delivery_id)}|${String(body.attempt)}`)?.[0];
        const w = webhooks.get(String(body.webhook_id))?.[0];
        const subject = `attempt ${String(body.attempt)} of delivery ${String(body.delivery_id)}`;
        if (!d || !a || !w) return `no ${subject}`;
        return disagreement(
          subject,
          [
            ['webhook_id', body.webhook_id, d.webhook_id],
            ['payment_id', body.payment_id, d.payment_id],
            ['event', body.event, d.event],
            ['account_id', body.account_id, w.account_id],
            ['livemode', body.livemode, w.livemode],
            ['status_code', body.status_code, a.status_code],
            ['duration_ms', body.duration_ms, a.duration_ms],
          ],
          [body.at, a.at],
        );
      }
      default:
        return `a kind the service never writes (${String(body.kind)})`;
    }
  };
  return parsed.flatMap((l) => {
    const reason = why(l);
    return reason ? [{ leafIndex: l.leafIndex, kind: String(l.body.kind), reason }] : [];
  });
}

/** Every leaf of the trail, sequenced or not yet, checked against its source a page at a time. */
export async function unaccountedLeaves(db: Knex, page = 1000): Promise<UnaccountedLeaf[]> {
  const found: UnaccountedLeaf[] = [];
  for (let after = 0; ;) {
    const rows: { id: string; leaf_index: string | null; leaf: string }[] = await db('audit_leaves')
      .where('id', '>', after)
      .orderBy('id')
      .limit(page)
      .select('id', 'leaf_index', 'leaf');
    if (rows.length === 0) return found;
    found.push(
      ...(await checkBatch(
        db,
        rows.map((r) => ({ leafIndex: r.leaf_index === null ? null : Number(r.leaf_index), leaf: r.leaf })),
      )),
    );
    after = Number(rows[rows.length - 1].id);
  }
}
