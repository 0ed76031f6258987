/**
 * `npm run audit:verify` holds every custody-trail leaf against what it records (docs/audit.md): a
 * leaf inserted with the application's database role ("release of 1,000,000 USD") is signed into
 * the tree like any other, and audit:verify reports it, since no ledger entry, transition or
 * delivery attempt accounts for it. On a database of its own: a forged leaf can never be removed.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appendLeaf } from '../src/audit/trail.repository';
import { createDb, migrate } from '../src/platform/database/knex';
import { canonicalJson } from '../src/audit/canonicalJson.rules';
import { auditScheduleId } from '../src/audit/audit.service';
import { startReceiver } from './helpers/receiver';
import { type Stack, eventually, startStack, validPayment } from './helpers/stack';

const ROOT = path.resolve(__dirname, '..');
const dbName = `audit_sources_${randomUUID().replace(/-/g, '')}`;
const admin = createDb(inject('databaseUrl'));
const url = Object.assign(new URL(inject('databaseUrl')), { pathname: `/${dbName}` }).toString();
let stack: Stack | undefined;

beforeAll(async () => {
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const db = createDb(url);
  await migrate(db).finally(() => db.destroy());
  stack = await startStack({ DATABASE_URL: url });
});
afterAll(async () => {
  await stack?.stop();
  await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.destroy();
});

async function auditVerify(publicKey: string) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts', '--public-key', publicKey], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}

/** Have the schedule sign heads until every leaf so far has its position. */
async function sequenced(s: Stack) {
  await eventually(
    async () => {
      await s.client.schedule.getHandle(auditScheduleId(s.taskQueue)).trigger();
      return (await s.db('audit_leaves').whereNull('leaf_index').first()) ? undefined : true;
    },
    30_000,
    'every leaf sequenced and signed',
  );
}

describe('audit:verify against the ledger, the histories and the delivery log', () => {
  it('passes on what the service wrote, and reports a forged leaf the tree itself signed', async () => {
    const s = stack!;
    const acct = await s.newAccount();
    const key = acct.test_api_key;
    const receiver = await startReceiver(() => 200);
    try {
      expect((await s.http.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url } })).status).toBe(201);
      const pay = (await s.http.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
      for (const action of ['deposit', 'approve', 'release'])
        expect((await s.http.post(`/api/v1/payments/${pay}/${action}`, { key })).status).toBe(200);
      await eventually(async () =>
        (await s.db('webhook_deliveries').where({ payment_id: pay, status: 'succeeded' })).length >= 4 ? true : undefined,
      );
      // Every kind of leaf is there: transitions, ledger entries, delivery attempts.
      const kinds = (await s.db('audit_leaves').distinct('kind')).map((r: { kind: string }) => r.kind).sort();
      expect(kinds).toEqual(['ledger.entry', 'payment.transition', 'webhook.attempt']);
      await sequenced(s);
      const publicKey = (await s.http.get('/api/v1/audit/public_key', { key })).body.public_key as string;
      const clean = await auditVerify(publicKey);
      expect(clean).toMatchObject({ code: 0, stderr: '' });
      expect(clean.stdout).toContain('every leaf accounted for by the ledger, the histories and the delivery log');

      // With the application's own role: a release of 1,000,000 USD this payment never made.
      const forged = {
        kind: 'payment.transition',
        payment_id: pay,
        account_id: acct.account_id,
        livemode: false,
        version: 99,
        action: 'release',
        from: 'pending_release',
        to: 'released',
        event: 'payment.released',
        actor: 'key_forged',
        reason: null,
        at: new Date().toISOString(),
        amount_minor: 100_000_000n,
        amount_exponent: 2,
        currency: 'USD',
      };
      await appendLeaf(s.db, {
        entryKey: `transition:${pay}:99`,
        kind: 'payment.transition',
        paymentId: pay,
        accountId: acct.account_id,
        livemode: false,
        leaf: canonicalJson(forged),
      });
      await sequenced(s);
      const index = Number(
        (
          await s
            .db('audit_leaves')
            .where({ entry_key: `transition:${pay}:99` })
            .first()
        ).leaf_index,
      );
      const caught = await auditVerify(publicKey);
      expect(caught.code).toBe(1);
      expect(caught.stderr).toContain('FAILED: 1 leaf that no ledger entry, transition or delivery attempt accounts for');
      expect(caught.stderr).toContain(`leaf ${index} (payment.transition): no transition 99 of payment ${pay}`);
    } finally {
      await receiver.close();
    }
  });
});
