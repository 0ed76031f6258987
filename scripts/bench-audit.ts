/**
 * `npm run bench:audit`: the custody trail at 1 million leaves. Builds the log with SQL in a
 * database of its own (leaves, their hashes and every stored subtree, computed by PostgreSQL's
 * sha256), checks the root against the TypeScript tree, then times inclusion and consistency
 * proofs (read + verify) and the sequencer appending leaves on top. Results in docs/benchmarks.md.
 *
 *   npm run bench:audit -- [--leaves 1000000] [--samples 2000]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEFAULT_TEST_DATABASE_URL } from '../tools/testSupport';
import { appendLeaf, consistencyProof, inclusionProofs, rootAt, sequence, signTreeHead, treeSize } from '../src/audit/trail.repository';
import { createDb, migrate } from '../src/platform/database/knex';
import { CompactRange, leafHash, verifyConsistency, verifyInclusion } from '../src/audit/merkle.rules';
import { canonicalJson } from '../src/audit/canonicalJson.rules';
import { privateKeyFromSeed, signEd25519 } from '../src/audit/ed25519';

const say = (msg: string) => process.stdout.write(`${msg}\n`);
const ms = (ns: bigint) => Number(ns) / 1e6;

function percentiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return `p50 ${at(50).toFixed(2)} ms, p95 ${at(95).toFixed(2)} ms, p99 ${at(99).toFixed(2)} ms, mean ${mean.toFixed(2)} ms (n=${s.length})`;
}

async function main() {
  const { values } = parseArgs({
    options: { leaves: { type: 'string', default: '1000000' }, samples: { type: 'string', default: '2000' } },
  });
  const n = Number(values.leaves);
  const samples = Number(values.samples);
  const base = new URL(process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL);
  const name = `audit_bench_${process.pid}`;
  const admin = createDb(base.toString());
  await admin.raw(`CREATE DATABASE ${name}`);
  base.pathname = `/${name}`;
  const db = createDb(base.toString());
  try {
    await migrate(db);
    say(`bench:audit: ${n} leaves in database ${name}`);

    let t = process.hrtime.bigint();
    // Leaves as the sequencer would leave them: canonical JSON, SHA-256(0x00 ‖ text), positions 0..n-1.
    await db.raw(
      `INSERT INTO audit_leaves (leaf_index, entry_key, kind, payment_id, account_id, livemode, leaf, leaf_hash)
       SELECT g - 1, 'bench:' || g, 'payment.transition', 'pay_bench_' || (g / 4), 'acct_bench', false, l.leaf,
              sha256('\\x00'::bytea || convert_to(l.leaf, 'UTF8'))
       FROM generate_series(1, ?) AS g,
            LATERAL (SELECT '{"amount_minor":' || (g * 7 % 100000) || ',"kind":"payment.transition","version":' || (g % 4 + 1) || '}' AS leaf) AS l`,
      [n],
    );
    await db.raw('INSERT INTO audit_nodes (level, index, hash) SELECT 0, leaf_index, leaf_hash FROM audit_leaves');
    for (let level = 1; 2 ** level <= n; level++) {
      await db.raw(
        `INSERT INTO audit_nodes (level, index, hash)
         SELECT ?, a.index / 2, sha256('\\x01'::bytea || a.hash || b.hash)
         FROM audit_nodes a JOIN audit_nodes b ON b.level = a.level AND b.index = a.index + 1
         WHERE a.level = ? AND a.index % 2 = 0`,
        [level, level - 1],
      );
    }
    await db.raw('ANALYZE audit_leaves; ANALYZE audit_nodes');
    say(`built ${n} leaves and their subtrees with SQL in ${(ms(process.hrtime.bigint() - t) / 1000).toFixed(1)} s`);

    // The SQL-built tree must be the RFC 9162 tree: rebuild the root from the leaf texts in TypeScript.
    t = process.hrtime.bigint();
    const range = new CompactRange();
    for (let after = -1; ;) {
      const rows: { leaf_index: string; leaf: string }[] = await db('audit_leaves')
        .select('leaf_index', 'leaf')
        .where('leaf_index', '>', after)
        .orderBy('leaf_index')
        .limit(50_000);
      for (const r of rows) range.append(leafHash(r.leaf));
      if (rows.length < 50_000) break;
      after = Number(rows[rows.length - 1].leaf_index);
    }
    const size = await treeSize(db);
    const root = await rootAt(db, size);
    if (size !== n || !root.equals(range.root())) throw new Error('the SQL-built tree is not the RFC 9162 tree of its leaves');
    say(
      `root from ${size} leaf texts (TypeScript, one pass) = root from stored nodes: ${root.toString('base64')} (${(ms(process.hrtime.bigint() - t) / 1000).toFixed(1)} s)`,
    );
    const key = privateKeyFromSeed(randomBytes(32));
    await signTreeHead(
      db,
      (m) => signEd25519(key, m),
      () => new Date(),
    );

    const inclusion: number[] = [];
    const consistency: number[] = [];
    for (let i = 0; i < samples; i++) {
      const index = Math.floor(Math.random() * size);
      const leaf = await db('audit_leaves').where({ leaf_index: index }).first('leaf');
      const start = process.hrtime.bigint();
      const [proof] = await inclusionProofs(db, [index], size);
      if (!verifyInclusion(index, size, leafHash(leaf.leaf), proof, root)) throw new Error(`inclusion proof of ${index} does not verify`);
      inclusion.push(ms(process.hrtime.bigint() - start));
      const from = 1 + Math.floor(Math.random() * (size - 1));
      const fromRoot = await rootAt(db, from);
      const c0 = process.hrtime.bigint();
      const cproof = await consistencyProof(db, from, size);
      if (!verifyConsistency(from, size, cproof, fromRoot, root)) throw new Error(`consistency ${from} → ${size} does not verify`);
      consistency.push(ms(process.hrtime.bigint() - c0));
    }
    say(`inclusion proof (read O(log n) nodes + verify) at ${size} leaves: ${percentiles(inclusion)}`);
    say(`consistency proof (read + verify) to ${size} leaves: ${percentiles(consistency)}`);

    // Appends on top: writers' inserts (8 at a time, one transaction each), then the sequencer.
    const extra = 10_000;
    t = process.hrtime.bigint();
    for (let i = 0; i < extra; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          db.transaction((trx) =>
            appendLeaf(trx, {
              entryKey: `bench-append:${i + k}`,
              kind: 'payment.transition',
              paymentId: 'pay_bench_append',
              accountId: 'acct_bench',
              livemode: false,
              leaf: canonicalJson({ kind: 'payment.transition', version: i + k }),
            }),
          ),
        ),
      );
    }
    const appendSeconds = ms(process.hrtime.bigint() - t) / 1000;
    t = process.hrtime.bigint();
    let sequenced = 0;
    for (let got = 1; got > 0;) sequenced += got = await sequence(db);
    const sequenceSeconds = ms(process.hrtime.bigint() - t) / 1000;
    say(
      `append: ${extra} leaves in ${extra} transactions (8 concurrent) in ${appendSeconds.toFixed(1)} s (${Math.round(extra / appendSeconds)}/s); ` +
        `sequencer numbered ${sequenced} and stored their subtrees in ${sequenceSeconds.toFixed(2)} s (${Math.round(sequenced / sequenceSeconds)}/s)`,
    );
    await signTreeHead(
      db,
      (m) => signEd25519(key, m),
      () => new Date(),
    );
    say(`signed a head over ${await treeSize(db)} leaves, consistent with the one at ${size}`);
  } finally {
    await db.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS ${name}`);
    await admin.destroy();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:audit: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
