/**
 * The custody trail's storage on a database of its own: gap-free positions under concurrent writers
 * and sequencers, PostgreSQL's refusals, and a DBA's tampering (triggers disabled) caught by
 * `npm run audit:verify` (its tree and heads: `--tree-only`, the leaves here being synthetic) and by
 * the offline verifier. Plus audit:verify's check as a property.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { checkProof } from '../examples/verify-proof';
import {
  AuditLogInconsistent,
  appendLeaf,
  inclusionProofs,
  latestHead,
  paymentLeaves,
  sequence,
  signTreeHead,
} from '../src/audit/trail.repository';
import { createDb, migrate } from '../src/platform/database/knex';
import { checkLog, type HeadRecord, type LeafRecord } from '../src/audit/trailCheck.rules';
import type { AuditLeaf } from '../src/audit/trailLeaves.rules';
import { leafHash, perfectCover, rootOf } from '../src/audit/merkle.rules';
import { canonicalJson, treeHeadMessage } from '../src/audit/canonicalJson.rules';
import { privateKeyFromSeed, rawPublicKey, signEd25519 } from '../src/audit/ed25519';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const seed = randomBytes(32);
const key = privateKeyFromSeed(seed);
const publicKey = rawPublicKey(key).toString('base64');
const sign = (m: Buffer) => signEd25519(key, m);

let db: Knex;
let admin: Knex;
let url: string;
const dbName = `audit_${randomUUID().replace(/-/g, '')}`;

beforeAll(async () => {
  admin = createDb(inject('databaseUrl'));
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${dbName}`;
  url = u.toString();
  db = createDb(url);
  await migrate(db);
});
afterAll(async () => {
  await db?.destroy();
  await admin?.raw(`DROP DATABASE IF EXISTS ${dbName}`);
  await admin?.destroy();
});

const leafOf = (n: number, payment = 'pay_x', account = 'acct_x'): AuditLeaf => ({
  entryKey: `test:${payment}:${n}`,
  kind: 'payment.transition',
  paymentId: payment,
  accountId: account,
  livemode: false,
  leaf: canonicalJson({ kind: 'payment.transition', payment_id: payment, version: n, amount_minor: 100 * n }),
});

async function auditVerify(): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/audit-verify.ts', '--public-key', publicKey, '--tree-only'],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url, AUDIT_SIGNING_KEY: '' },
      },
    );
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/** As a DBA could: with the log's triggers off for one statement. */
async function asDba(sql: string, bindings: unknown[] = []) {
  await db.transaction(async (trx) => {
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw(sql, bindings as Knex.RawBinding[]);
  });
}

describe('positions', () => {
  it('are gap-free and unique under concurrent writers, rollbacks, repeats and sequencers', async () => {
    const writers = Array.from({ length: 60 }, (_, n) =>
      db
        .transaction(async (trx) => {
          await appendLeaf(trx, leafOf(n, 'pay_concurrent'));
          await appendLeaf(trx, leafOf(n, 'pay_concurrent')); // a repeated projection: no second leaf
          if (n % 7 === 3) throw new Error('rolled back');
        })
        .catch(() => 'rolled back'),
    );
    const sequencers = Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 5; i++) await sequence(db, 7);
    });
    await Promise.all([...writers, ...sequencers]);
    while ((await sequence(db)) > 0) {
      /* drain */
    }
    const rows = await db('audit_leaves').where({ payment_id: 'pay_concurrent' }).select('leaf_index', 'entry_key');
    const committed = Array.from({ length: 60 }, (_, n) => n).filter((n) => n % 7 !== 3);
    expect(rows.map((r) => r.entry_key).sort()).toEqual(committed.map((n) => `test:pay_concurrent:${n}`).sort());
    const all = (await db('audit_leaves').select('leaf_index').orderBy('leaf_index')).map((r) => Number(r.leaf_index));
    expect(all).toEqual(all.map((_, i) => i));
    const nodes = await db('audit_nodes').where({ level: 0 }).count({ n: '*' }).first();
    expect(Number(nodes!.n)).toBe(all.length);
  });

  it('PostgreSQL refuses changing a content column, re-numbering, deleting and truncating', async () => {
    await appendLeaf(db, leafOf(1, 'pay_refusals'));
    await expect(db('audit_leaves').where({ payment_id: 'pay_refusals' }).update({ leaf: '{}' })).rejects.toThrow(/append-only/);
    await sequence(db);
    await expect(db('audit_leaves').where({ payment_id: 'pay_refusals' }).update({ leaf_index: 10_000 })).rejects.toThrow(/append-only/);
    await expect(db('audit_leaves').where({ payment_id: 'pay_refusals' }).del()).rejects.toThrow(/append-only/);
    await expect(db.raw('TRUNCATE audit_leaves')).rejects.toThrow(/append-only/);
    await expect(db.raw('TRUNCATE audit_nodes')).rejects.toThrow(/append-only/);
    await signTreeHead(db, sign, () => new Date());
    await expect(db('audit_tree_heads').update({ tree_size: 0 })).rejects.toThrow(/append-only/);
    await expect(db('audit_tree_heads').del()).rejects.toThrow(/append-only/);
  });
});

describe('tampering', () => {
  it('audit:verify and the offline verifier reject a leaf a DBA changed; audit:verify names it', async () => {
    for (let n = 0; n < 25; n++) await appendLeaf(db, leafOf(n, 'pay_tamper', 'acct_tamper'));
    await signTreeHead(db, sign, () => new Date());
    await signTreeHead(db, sign, () => new Date());
    const clean = await auditVerify();
    expect(clean.output).toMatch(/ok: \d+ leaves, 3 signed tree heads/);
    expect(clean.code).toBe(0);

    const proofJson = async () => {
      const head = (await latestHead(db))!;
      const leaves = await paymentLeaves(db, { accountId: 'acct_tamper', livemode: false }, 'pay_tamper', head.treeSize);
      const proofs = await inclusionProofs(
        db,
        leaves.map((l) => l.leafIndex),
        head.treeSize,
      );
      return {
        tree_head: {
          tree_size: head.treeSize,
          root_hash: head.rootHash.toString('base64'),
          timestamp: head.timestamp,
          signature: head.signature.toString('base64'),
        },
        leaves: leaves.map((l, i) => ({ leaf_index: l.leafIndex, leaf: l.leaf, audit_path: proofs[i].map((h) => h.toString('base64')) })),
      };
    };
    expect(checkProof(await proofJson(), publicKey)).toEqual([]);

    const target = await db('audit_leaves').where({ entry_key: 'test:pay_tamper:7' }).first();
    const index = Number(target.leaf_index);
    const forged = target.leaf.replace('"amount_minor":700', '"amount_minor":1');
    // Text and its hash column both rewritten: the tree's stored leaf hash and the signed roots still disagree.
    await asDba('UPDATE audit_leaves SET leaf = ?, leaf_hash = ? WHERE id = ?', [forged, leafHash(forged), target.id]);
    const tampered = await auditVerify();
    expect(tampered.code).toBe(1);
    expect(tampered.output).toContain(`FAILED at leaf ${index}`);
    expect(checkProof(await proofJson(), publicKey)).toEqual([expect.stringContaining(`leaf ${index}`)]);

    // Also the tree's own leaf node rewritten: only the signed heads can tell, and they do.
    await asDba('UPDATE audit_nodes SET hash = ? WHERE level = 0 AND index = ?', [leafHash(forged), index]);
    const thorough = await auditVerify();
    expect(thorough.code).toBe(1);
    expect(thorough.output).toMatch(/no longer hash to the root signed at/);
    // And the signer refuses to sign a head over a stored tree that no longer proves the last head.
    const size = (await latestHead(db))!.treeSize;
    const top = perfectCover(0, size)[0];
    const topRow = await db('audit_nodes').where({ level: top.level, index: top.index }).first();
    await asDba('UPDATE audit_nodes SET hash = ? WHERE level = ? AND index = ?', [randomBytes(32), top.level, top.index]);
    await appendLeaf(db, leafOf(99, 'pay_tamper', 'acct_tamper'));
    await expect(signTreeHead(db, sign, () => new Date())).rejects.toBeInstanceOf(AuditLogInconsistent);

    // Put it back as it was: the log verifies again.
    await asDba('UPDATE audit_nodes SET hash = ? WHERE level = ? AND index = ?', [topRow.hash, top.level, top.index]);
    await asDba('UPDATE audit_leaves SET leaf = ?, leaf_hash = ? WHERE id = ?', [target.leaf, target.leaf_hash, target.id]);
    await asDba('UPDATE audit_nodes SET hash = ? WHERE level = 0 AND index = ?', [target.leaf_hash, index]);
    expect((await auditVerify()).code).toBe(0);
    await signTreeHead(db, sign, () => new Date());
  });

  it('audit:verify reports a removed and a reordered leaf', async () => {
    const rows = await db('audit_leaves').whereNotNull('leaf_index').orderBy('leaf_index').limit(6);
    const [a, b] = [rows[4], rows[5]];
    await asDba('UPDATE audit_leaves SET leaf_index = 999999999999 WHERE id = ?', [a.id]);
    await asDba('UPDATE audit_leaves SET leaf_index = ? WHERE id = ?', [a.leaf_index, b.id]);
    await asDba('UPDATE audit_leaves SET leaf_index = ? WHERE id = ?', [b.leaf_index, a.id]);
    const reordered = await auditVerify();
    expect(reordered.code).toBe(1);
    expect(reordered.output).toContain(`FAILED at leaf ${a.leaf_index}`);
    await asDba('UPDATE audit_leaves SET leaf_index = 999999999999 WHERE id = ?', [a.id]);
    await asDba('UPDATE audit_leaves SET leaf_index = ? WHERE id = ?', [b.leaf_index, b.id]);
    await asDba('UPDATE audit_leaves SET leaf_index = ? WHERE id = ?', [a.leaf_index, a.id]);
    expect((await auditVerify()).code).toBe(0);

    await asDba('DELETE FROM audit_leaves WHERE id = ?', [rows[2].id]);
    const removed = await auditVerify();
    expect(removed.code).toBe(1);
    expect(removed.output).toContain(`FAILED at leaf ${rows[2].leaf_index}: leaf ${rows[2].leaf_index}: missing`);
  });
});

describe("audit:verify's check", () => {
  const logOf = (texts: string[], heads: number[]) => {
    const hashes = texts.map((t) => leafHash(t));
    const records: LeafRecord[] = texts.map((t, i) => ({ leafIndex: i, leaf: t, storedHash: hashes[i], sequencedHash: hashes[i] }));
    const signed: HeadRecord[] = heads.map((n, i) => {
      const head = { tree_size: n, root_hash: rootOf(hashes.slice(0, n)).toString('base64'), timestamp: `t${i}` };
      return { treeSize: n, rootHash: rootOf(hashes.slice(0, n)), timestamp: head.timestamp, signature: sign(treeHeadMessage(head)) };
    });
    return { records, signed };
  };
  const verifySig = (h: HeadRecord) =>
    treeHeadMessage({ tree_size: h.treeSize, root_hash: h.rootHash.toString('base64'), timestamp: h.timestamp }).length > 0 &&
    h.signature.equals(sign(treeHeadMessage({ tree_size: h.treeSize, root_hash: h.rootHash.toString('base64'), timestamp: h.timestamp })));

  it('fails for a changed, removed, inserted or reordered leaf, even with every recorded hash rewritten to match', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 6 }), { minLength: 2, maxLength: 30 }),
        fc.constantFrom('change', 'remove', 'insert', 'reorder'),
        fc.nat(),
        fc.boolean(),
        async (texts, how, at, rewriteHashes) => {
          const { records, signed } = logOf(texts, [texts.length]);
          expect((await checkLog(records, signed, verifySig)).ok).toBe(true);
          const i = at % texts.length;
          const edited = [...texts];
          if (how === 'change') edited[i] = `${edited[i]}!`;
          if (how === 'remove') edited.splice(i, 1);
          if (how === 'insert') edited.splice(i, 0, 'inserted');
          if (how === 'reorder') {
            const j = (i + 1) % texts.length;
            if (edited[i] === edited[j]) return;
            [edited[i], edited[j]] = [edited[j], edited[i]];
          }
          // The rows as a DBA left them: positions renumbered 0..n-1, hashes kept or rewritten.
          const tampered: LeafRecord[] = edited.map((t, k) => {
            const original = records[k];
            const hash = rewriteHashes || !original ? leafHash(t) : original.storedHash;
            return { leafIndex: k, leaf: t, storedHash: hash, sequencedHash: hash };
          });
          const result = await checkLog(tampered, signed, verifySig);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.leafIndex).toBeTypeOf('number');
        },
      ),
    );
  });

  it('fails for a head with a bad signature', async () => {
    const { records, signed } = logOf(['a', 'b', 'c'], [2, 3]);
    signed[0].signature = Buffer.alloc(64);
    const result = await checkLog(records, signed, verifySig);
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('bad signature') });
  });
});
