/**
 * `npm run audit:verify`: rebuild the custody trail's Merkle tree from the leaves' text and check
 * every stored tree head (root and Ed25519 signature), then hold every leaf against what it records
 * (src/audit/trailSources.repository.ts; `--tree-only` skips that, for a copy of the trail's tables alone). Exit 0
 * when all hold; exit 1 naming the first bad leaf, or each leaf nothing accounts for, otherwise. Trusted keys: `--public-key <base64>` (repeatable, e.g. after a rotation), else
 * the public half of AUDIT_SIGNING_KEY (from the environment, or DATA_DIR/secrets.json for npm start).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/platform/config';
import { parseSecretKey } from '../src/platform/lib/settingValues';
import { checkLog } from '../src/audit/trailCheck.rules';
import { treeHeadMessage } from '../src/audit/canonicalJson.rules';
import { allHeads, sequencedLeaves } from '../src/audit/trail.repository';
import { unaccountedLeaves } from '../src/audit/trailSources.repository';

/** At most this many unaccounted leaves are named, then how many more. */
const SHOWN = 50;
import { createDb } from '../src/platform/database/knex';
import { privateKeyFromSeed, rawPublicKey, verifyEd25519 } from '../src/audit/ed25519';
import { LOCAL_SECRETS_FILE } from '../src/localSecrets';
import { runCommand } from './lib/cli';

function trustedKeys(flags: string[]): Buffer[] {
  if (flags.length > 0) {
    return flags.map((k) => {
      const key = Buffer.from(k, 'base64');
      if (key.length !== 32) throw new Error(`--public-key ${k}: not a 32-byte Ed25519 public key in base64`);
      return key;
    });
  }
  const config = loadConfig();
  if (config.AUDIT_SIGNING_KEY) return [rawPublicKey(config.AUDIT_SIGNING_KEY)];
  const file = path.join(config.DATA_DIR, LOCAL_SECRETS_FILE);
  const stored = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { AUDIT_SIGNING_KEY?: string }) : {};
  const seed = stored.AUDIT_SIGNING_KEY ? parseSecretKey(stored.AUDIT_SIGNING_KEY) : undefined;
  if (!seed)
    throw new Error('no key to check signatures with: pass --public-key <base64> (GET /api/v1/audit/public_key) or set AUDIT_SIGNING_KEY');
  return [rawPublicKey(privateKeyFromSeed(seed))];
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'public-key': { type: 'string', multiple: true }, 'tree-only': { type: 'boolean' } } });
  const keys = trustedKeys(values['public-key'] ?? []);
  const config = loadConfig();
  const db = createDb(config.DATABASE_URL, config.DATA_DIR, 'stop it first: the trail is checked on a database no process writes');
  try {
    const heads = await allHeads(db);
    const result = await checkLog(sequencedLeaves(db), heads, (h) =>
      keys.some((k) =>
        verifyEd25519(
          k,
          treeHeadMessage({ tree_size: h.treeSize, root_hash: h.rootHash.toString('base64'), timestamp: h.timestamp }),
          h.signature,
        ),
      ),
    );
    const unaccounted = result.ok && !values['tree-only'] ? await unaccountedLeaves(db) : [];
    if (unaccounted.length) {
      const lines = unaccounted.slice(0, SHOWN).map((u) => `  leaf ${u.leafIndex ?? '(not yet sequenced)'} (${u.kind}): ${u.reason}`);
      const more = unaccounted.length > SHOWN ? [`  … and ${unaccounted.length - SHOWN} more`] : [];
      process.stderr.write(
        `audit:verify: FAILED: ${unaccounted.length} leaf${unaccounted.length === 1 ? '' : 'ves'} that no ledger entry, transition or delivery attempt accounts for\n${[...lines, ...more].join('\n')}\n`,
      );
      return 1;
    }
    if (result.ok) {
      process.stdout.write(
        `audit:verify: ok: ${result.leaves} leaves, ${result.heads} signed tree heads, root ${result.root.toString('base64')}${values['tree-only'] ? '' : '; every leaf accounted for by the ledger, the histories and the delivery log'}\n`,
      );
      return 0;
    }
    process.stderr.write(
      `audit:verify: FAILED${result.leafIndex === undefined ? '' : ` at leaf ${result.leafIndex}`}: ${result.message}\n`,
    );
    return 1;
  } finally {
    await db.destroy();
  }
}

runCommand(main, 'audit:verify');
