/**
 * The custody trail's repository (docs/audit.md): leaves appended in the writers' transactions, the
 * sequencer that numbers them and stores the tree's subtrees, O(log n)-row proofs, signed heads.
 */
import { AUDIT_LOG_INCONSISTENT } from '../platform/failures.rules';
import type { Knex } from 'knex';
import type { AuditLeaf } from './trailLeaves.rules';
import type { LeafRecord } from './trailCheck.rules';
import {
  CompactRange,
  assemble,
  consistencyRanges,
  foldCover,
  inclusionRanges,
  leafHash,
  nodeLookup,
  nodesFor,
  perfectCover,
  verifyConsistency,
  type Hash,
  type NodeRef,
} from './merkle.rules';
import { treeHeadMessage, type TreeHead } from './canonicalJson.rules';

type Db = Knex | Knex.Transaction;

/** The advisory lock only the sequencer takes (writers never do): one sequencer at a time. */
const SEQUENCER_LOCK = 0x61756469; // "audi"
/** Leaves given positions per sequencer transaction. */
const SEQUENCE_BATCH = 5000;

/**
 * Record a movement, in the caller's transaction: it commits or rolls back with the write it
 * records. Idempotent by the leaf's natural key. Takes no lock a concurrent writer waits on.
 */
export async function appendLeaf(db: Db, leaf: AuditLeaf): Promise<void> {
  await db('audit_leaves').insert(leafRow(leaf)).onConflict('entry_key').ignore();
}

/** A leaf as its `audit_leaves` row is written (every writer's, the one-statement ones too): its hash beside it. */
export function leafRow(leaf: AuditLeaf) {
  return {
    entry_key: leaf.entryKey,
    kind: leaf.kind,
    payment_id: leaf.paymentId,
    account_id: leaf.accountId,
    livemode: leaf.livemode,
    leaf: leaf.leaf,
    leaf_hash: leafHash(leaf.leaf),
  };
}

/** The row's columns in `leafRow`'s order, with the type each takes as a bound parameter. */
export const LEAF_COLUMNS = [
  ['entry_key', 'text'],
  ['kind', 'text'],
  ['payment_id', 'text'],
  ['account_id', 'text'],
  ['livemode', 'boolean'],
  ['leaf', 'text'],
  ['leaf_hash', 'bytea'],
] as const satisfies readonly (readonly [keyof ReturnType<typeof leafRow>, string])[];

export async function treeSize(db: Db): Promise<number> {
  const row = await db('audit_leaves').max({ max: 'leaf_index' }).first();
  return row?.max == null ? 0 : Number(row.max) + 1;
}

async function readNodes(db: Db, refs: NodeRef[]): Promise<(NodeRef & { hash: Hash })[]> {
  if (refs.length === 0) return [];
  const rows: { level: number; index: string; hash: Buffer }[] = await db('audit_nodes')
    .select('level', 'index', 'hash')
    .whereIn(
      ['level', 'index'],
      refs.map((r) => [r.level, r.index]),
    );
  return rows.map((r) => ({ level: r.level, index: Number(r.index), hash: Buffer.from(r.hash) }));
}

/** MTH of the first `size` leaves, from at most log2(size) stored nodes. */
export async function rootAt(db: Db, size: number): Promise<Hash> {
  const cover = perfectCover(0, size);
  const lookup = nodeLookup(await readNodes(db, cover));
  return foldCover(cover.map(lookup));
}

/** Inclusion proofs of several leaves against one tree size, in one read of O(k log n) nodes. */
export async function inclusionProofs(db: Db, indices: number[], size: number): Promise<Hash[][]> {
  const ranges = indices.map((i) => inclusionRanges(i, size));
  const lookup = nodeLookup(await readNodes(db, nodesFor(ranges.flat())));
  return ranges.map((r) => assemble(r, lookup));
}

export async function consistencyProof(db: Db, from: number, to: number): Promise<Hash[]> {
  const ranges = consistencyRanges(from, to);
  return assemble(ranges, nodeLookup(await readNodes(db, nodesFor(ranges))));
}

/** Give positions to leaves waiting for one, holding the sequencer lock (the caller's transaction). */
async function sequenceLocked(trx: Knex.Transaction, batch: number): Promise<number> {
  const pending: { id: string; leaf: string; leaf_hash: Buffer }[] = await trx('audit_leaves')
    .select('id', 'leaf', 'leaf_hash')
    .whereNull('leaf_index')
    .orderBy('id')
    .limit(batch);
  if (pending.length === 0) return 0;
  const size = await treeSize(trx);
  const frontier = await readNodes(trx, perfectCover(0, size));
  const range = new CompactRange(
    size,
    frontier.sort((a, b) => b.level - a.level).map((n) => n.hash),
  );
  const nodes: { level: number; index: number; hash: Buffer }[] = [];
  for (const row of pending) {
    const hash = leafHash(row.leaf);
    // A writer's hash is recomputed, never trusted: the tree is built from the leaf text.
    if (!hash.equals(Buffer.from(row.leaf_hash))) throw new Error(`audit leaf row ${row.id}: its stored hash does not match its text`);
    nodes.push(...range.append(hash));
  }
  for (let i = 0; i < nodes.length; i += 1000) await trx('audit_nodes').insert(nodes.slice(i, i + 1000));
  const ids = pending.map((p) => p.id);
  const indices = pending.map((_, i) => String(size + i));
  await trx.raw(
    'UPDATE audit_leaves AS l SET leaf_index = v.idx FROM unnest(?::bigint[], ?::bigint[]) AS v(id, idx) WHERE l.id = v.id AND l.leaf_index IS NULL',
    [ids, indices],
  );
  return pending.length;
}

/**
 * The sequencer: one at a time (a PostgreSQL advisory lock), it reads the leaves committed without
 * a position, numbers them from the tree's size on and stores the subtrees they complete, in one
 * transaction, so the positions are gap-free whatever writers do. Returns how many it numbered
 * (0 also when another sequencer holds the lock).
 */
export async function sequence(db: Knex, batch = SEQUENCE_BATCH): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS got', [SEQUENCER_LOCK]);
    if (!rows[0].got) return 0;
    return sequenceLocked(trx, batch);
  });
}

export interface StoredHead {
  treeSize: number;
  rootHash: Buffer;
  timestamp: string;
  signature: Buffer;
}

const toHead = (r: { tree_size: string; root_hash: Buffer; timestamp: string; signature: Buffer }): StoredHead => ({
  treeSize: Number(r.tree_size),
  rootHash: Buffer.from(r.root_hash),
  timestamp: r.timestamp,
  signature: Buffer.from(r.signature),
});

export async function latestHead(db: Db): Promise<StoredHead | undefined> {
  const row = await db('audit_tree_heads').orderBy('id', 'desc').first();
  return row ? toHead(row) : undefined;
}

/** A worker's public key, published (again: the latest is the one served) so the API never needs the signing key. */
export async function publishPublicKey(db: Knex, publicKey: Buffer): Promise<void> {
  await db('audit_signing_keys').insert({ public_key: publicKey }).onConflict('public_key').merge({ published_at: db.fn.now() });
}

/** The public key the workers published last. */
export async function publishedPublicKey(db: Db): Promise<Buffer | undefined> {
  const row = await db('audit_signing_keys').orderBy('published_at', 'desc').first('public_key');
  return row ? Buffer.from(row.public_key as Buffer) : undefined;
}

/** Every head, oldest first (`audit:verify`). */
export async function allHeads(db: Db): Promise<StoredHead[]> {
  return (await db('audit_tree_heads').orderBy('id')).map(toHead);
}

/** The log's history no longer contains the last signed head: nothing more is signed. */
export class AuditLogInconsistent extends Error {
  override name = AUDIT_LOG_INCONSISTENT;
}

/**
 * Sequence what is waiting, then sign a head over the whole log. Refuses (AuditLogInconsistent)
 * to sign a head that the stored tree cannot prove consistent with the previous signed one.
 */
export async function signTreeHead(db: Knex, sign: (message: Buffer) => Buffer, now: () => Date): Promise<StoredHead> {
  while ((await sequence(db)) === SEQUENCE_BATCH) {
    /* drain the backlog in bounded transactions */
  }
  return db.transaction(async (trx) => {
    // Blocking: waits for a sequencer in progress, and keeps the next one out until the head is stored.
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [SEQUENCER_LOCK]);
    await sequenceLocked(trx, SEQUENCE_BATCH);
    const size = await treeSize(trx);
    const root = await rootAt(trx, size);
    const previous = await latestHead(trx);
    if (previous) {
      const consistent =
        previous.treeSize <= size &&
        verifyConsistency(previous.treeSize, size, await consistencyProof(trx, previous.treeSize, size), previous.rootHash, root);
      if (!consistent) {
        throw new AuditLogInconsistent(
          `the log of ${size} leaves is not consistent with the signed head of size ${previous.treeSize}; no head signed`,
        );
      }
    }
    const head: TreeHead = { tree_size: size, root_hash: root.toString('base64'), timestamp: now().toISOString() };
    const stored = { treeSize: size, rootHash: root, timestamp: head.timestamp, signature: sign(treeHeadMessage(head)) };
    await trx('audit_tree_heads').insert({
      tree_size: size,
      root_hash: root,
      timestamp: stored.timestamp,
      signature: stored.signature,
    });
    return stored;
  });
}

/** A payment's leaves inside a tree of `size`, only in the owner's account and mode. */
export async function paymentLeaves(
  db: Db,
  scope: { accountId: string; livemode: boolean },
  paymentId: string,
  size: number,
): Promise<{ leafIndex: number; leaf: string }[]> {
  const rows: { leaf_index: string; leaf: string }[] = await db('audit_leaves')
    .select('leaf_index', 'leaf')
    .where({ payment_id: paymentId, account_id: scope.accountId, livemode: scope.livemode })
    .where('leaf_index', '<', size)
    .orderBy('leaf_index');
  return rows.map((r) => ({ leafIndex: Number(r.leaf_index), leaf: r.leaf }));
}

/** Every sequenced leaf in order with its recorded hashes, in pages (`audit:verify`). */
export async function* sequencedLeaves(db: Knex, page = 10_000): AsyncGenerator<LeafRecord> {
  let after = -1;
  for (;;) {
    const rows: { leaf_index: string; leaf: string; leaf_hash: Buffer; node_hash: Buffer | null }[] = await db('audit_leaves as l')
      .leftJoin('audit_nodes as n', (j) => j.on('n.level', '=', db.raw('0')).andOn('n.index', '=', 'l.leaf_index'))
      .select('l.leaf_index', 'l.leaf', 'l.leaf_hash', 'n.hash as node_hash')
      .whereNotNull('l.leaf_index')
      .where('l.leaf_index', '>', after)
      .orderBy('l.leaf_index')
      .limit(page);
    for (const r of rows) {
      yield {
        leafIndex: Number(r.leaf_index),
        leaf: r.leaf,
        storedHash: Buffer.from(r.leaf_hash),
        sequencedHash: r.node_hash ? Buffer.from(r.node_hash) : null,
      };
    }
    if (rows.length < page) return;
    after = Number(rows[rows.length - 1].leaf_index);
  }
}
