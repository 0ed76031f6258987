/**
 * Personal data stays inside the service (docs/architecture.md, "Personal data"): after a whole
 * lifecycle with distinctive personal values, nothing `temporal workflow show/describe/list` prints
 * holds any of them; and a redaction erases them from every table while the ledger, the custody
 * trail and the payment's proof still verify.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkProof } from '../examples/verify-proof';
import { createDb, migrate } from '../src/platform/database/knex';
import { auditScheduleId } from '../src/audit/audit.service';
import { startReceiver } from './helpers/receiver';
import { type Stack, eventually, scriptEnv, startStack, useStack } from './helpers/stack';
import { FAST_WEBHOOK_RETRIES, configureWebhook } from './helpers/webhooks';
import { temporalCli } from './helpers/temporalCli';

const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);

/** Distinctive values, none of which the service's own text could contain by chance. */
function personalValues() {
  const tag = Math.random().toString(36).slice(2, 10);
  return {
    payer: `carol.payer.${tag}@example.com`,
    recipient: `dave.recipient.${tag}@example.com`,
    description: `Antique clock ${tag} for Carol`,
    metadataValue: `order-ref-${tag}-carol`,
    metadataKey: `customer_note_${tag}`,
    reason: `Carol says the clock ${tag} arrived scratched`,
    token: `tok_${tag}_secret`,
  };
}

/** A lifecycle through every kind of message: create, deposit, dispute, a split with a reason. */
async function lifecycle(stack: Stack, v: ReturnType<typeof personalValues>) {
  // The first attempt of every delivery fails, so that each runs as a delivery activity too.
  const seen = new Set<string>();
  const receiver = await startReceiver((_n, req) => {
    const id = String(req.headers['webhook-id']);
    if (seen.has(id)) return 200;
    seen.add(id);
    return 503;
  });
  const acct = await stack.newAccount();
  const key = acct.test_api_key;
  const url = `${receiver.url}?token=${v.token}`;
  await configureWebhook(stack, key, url);
  const created = await stack.http.post('/api/v1/payments', {
    key,
    body: {
      amount: 199.99,
      currency: 'USD',
      platform_fee: 5.55,
      payer_email: v.payer,
      recipient_email: v.recipient,
      description: v.description,
      metadata: { [v.metadataKey]: v.metadataValue },
    },
  });
  expect(created.status).toBe(201);
  expect(created.body.payer_email).toBe(v.payer);
  const id = created.body.id as string;
  const act = async (action: string, body: Record<string, unknown> = {}) => {
    const res = await stack.http.post(`/api/v1/payments/${id}/${action}`, { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  await act('deposit', { reason: v.reason });
  await act('dispute', { reason: v.reason });
  const resolved = await act('resolve', { resolution: 'split', refund_amount: 88.88, reason: v.reason });
  expect(resolved).toMatchObject({ status: 'released', amount_refunded: 88.88, payer_email: v.payer, description: v.description });
  // Every delivery delivered (after its failed first attempt), and the run closed.
  await eventually(async () => (receiver.received.length >= 8 ? true : undefined), 30_000, 'every delivery');
  await eventually(
    async () => ((await stack.client.workflow.getHandle(id).describe()).status.name === 'COMPLETED' ? true : undefined),
    30_000,
    'the run to close',
  );
  return { id, key, acct, receiver, url };
}

describe('personal data and Temporal', () => {
  const stack = useStack({ env: FAST_WEBHOOK_RETRIES });

  it('nothing temporal workflow show, describe or list prints holds a personal value, while the money story is there', async () => {
    const v = personalValues();
    const { id, receiver } = await lifecycle(stack, v);
    try {
      const shown = [
        temporalCli(['workflow', 'show', '--workflow-id', id, '--output', 'json']),
        temporalCli(['workflow', 'describe', '--workflow-id', id, '--output', 'json']),
        temporalCli(['workflow', 'describe', '--workflow-id', id]),
        temporalCli(['workflow', 'list', '--query', `WorkflowId="${id}"`, '--output', 'json']),
        // Each delivery is a workflow of its own, named by the delivery's id (a child of the payment's run).
        ...((await stack.db('webhook_deliveries').where({ payment_id: id }).pluck('id')) as string[]).flatMap((d) =>
          temporalCli(['workflow', 'list', '--query', `WorkflowId="${d}"`, '--output', 'json']).includes(d)
            ? [temporalCli(['workflow', 'show', '--workflow-id', d, '--output', 'json'])]
            : [],
        ),
      ].join('\n');
      expect(shown).toContain(id);
      for (const [name, value] of Object.entries(v))
        expect(shown.includes(value), `${name} (${value}) readable through Temporal`).toBe(false);
      // What an operator needs instead: the amounts and the movement with its amounts.
      expect(shown).toContain('199.99 USD');
      expect(shown).toContain('split: 88.88 refunded, 111.11 released, fee 3.08');
    } finally {
      await receiver.close();
    }
  });
  it('a webhook host that stops resolving is named in the delivery log, never in Temporal', async () => {
    const host = `dave-${Math.random().toString(36).slice(2, 10)}.invalid`;
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    let webhookId = '';
    // The first attempt hangs until its time-out; meanwhile the host stops resolving, so the retry is refused.
    const receiver = await startReceiver(() => {
      // A knex builder runs only when awaited or then'd.
      void stack
        .db('webhooks')
        .where({ id: webhookId })
        .update({ url: `https://${host}/hook` })
        .then(() => undefined);
      return 'hang';
    });
    try {
      webhookId = (await configureWebhook(stack, key, receiver.url, ['payment.created'])).id;
      const created = await stack.http.post('/api/v1/payments', {
        key,
        body: { amount: 12, currency: 'USD', payer_email: 'p@example.com', recipient_email: 'r@example.com' },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const { deliveryId, errors } = await eventually(
        async () => {
          const delivery = await stack.db('webhook_deliveries').where({ payment_id: id }).first();
          if (delivery?.status !== 'failed') return undefined;
          return {
            deliveryId: delivery.id as string,
            errors: (await stack.db('webhook_delivery_attempts').where({ delivery_id: delivery.id }).pluck('error')) as string[],
          };
        },
        30_000,
        'the refused retry',
      );
      expect(errors.join('\n')).toContain(host);
      // The delivery is a workflow of its own, named by its id, a child of the payment's run: its activity failed there.
      const shown = [id, deliveryId].map((w) => temporalCli(['workflow', 'show', '--workflow-id', w, '--output', 'json'])).join('\n');
      expect(shown).toContain(deliveryId);
      expect(shown).toContain('WebhookUrlRefused');
      expect(shown.includes(host), `${host} readable through Temporal`).toBe(false);
    } finally {
      receiver.release();
      await receiver.close();
    }
  });
});

describe('redaction', () => {
  // A database of its own: its dump and its whole trail are this test's alone.
  const dbName = `redaction_${randomUUID().replace(/-/g, '')}`;
  let admin: Knex;
  let stack: Stack;
  beforeAll(async () => {
    admin = createDb(inject('databaseUrl'));
    await admin.raw(`CREATE DATABASE ${dbName}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${dbName}`;
    const db = createDb(url.toString());
    await migrate(db);
    await db.destroy();
    stack = await startStack({ ...FAST_WEBHOOK_RETRIES, DATABASE_URL: url.toString() });
  });
  afterAll(async () => {
    await stack?.stop();
    await admin?.raw(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin?.destroy();
  });

  it('a redaction erases every personal value from the database; ledger, trail and proof still verify', async () => {
    const v = personalValues();
    const { id, key, acct, receiver } = await lifecycle(stack, v);
    try {
      const open = await stack.http.post('/api/v1/payments', {
        key,
        body: { amount: 10, currency: 'USD', payer_email: 'x@example.com', recipient_email: 'y@example.com' },
      });
      const refused = await stack.http.post(`/api/v1/payments/${open.body.id}/redact`, { key });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('invalid_transition');

      const redacted = await stack.http.post(`/api/v1/payments/${id}/redact`, { key });
      expect(redacted.status).toBe(200);
      expect(redacted.body).toMatchObject({
        payer_email: '[redacted]',
        recipient_email: '[redacted]',
        description: '[redacted]',
        metadata: { redacted: '[redacted]' },
        amount: 199.99,
        amount_refunded: 88.88,
        amount_released: 111.11,
        fee_collected: 3.08,
      });
      // Idempotent: a second erasure changes nothing and is not recorded twice.
      expect((await stack.http.post(`/api/v1/payments/${id}/redact`, { key })).body).toEqual(redacted.body);
      const history = (await stack.http.get(`/api/v1/payments/${id}/history`, { key })).body.data;
      expect(history.filter((e: { reason: string | null }) => e.reason !== null).map((e: { reason: string }) => e.reason)).toEqual([
        '[redacted]',
        '[redacted]',
        '[redacted]',
      ]);
      expect(history.at(-1)).toMatchObject({ action: 'redact', actor: expect.any(String), event: null, from: 'released', to: 'released' });
      expect(history.filter((e: { action: string }) => e.action === 'redact')).toHaveLength(1);

      const { stdout: dump } = await run('pg_dump', ['--data-only', stack.config.DATABASE_URL!], { maxBuffer: 512 * 1024 * 1024 });
      expect(dump).toContain(id);
      // The webhook URL is the account's configuration, not the payment's (docs/operations.md).
      const { token: _token, ...payments } = v;
      for (const [name, value] of Object.entries(payments))
        expect(dump.includes(value), `${name} (${value}) left in the database`).toBe(false);

      expect(await stack.services.ledger.verify(acct.account_id)).toEqual([]);
      const env = scriptEnv(stack);
      // A failure exits non-zero, which rejects.
      const ledger = await run('npx', ['tsx', 'scripts/ledger-verify.ts'], { cwd: ROOT, env });
      expect(ledger.stdout).toContain('ledger verified: every invariant holds');
      const publicKey = (await stack.http.get('/api/v1/audit/public_key', { key })).body.public_key as string;
      const audit = await run(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts', '--public-key', publicKey], {
        cwd: ROOT,
        env,
      });
      expect(audit.stdout).toMatch(/^audit:verify: ok: /);
      const proof = await eventually(
        async () => {
          await stack.client.schedule.getHandle(auditScheduleId(stack.taskQueue)).trigger();
          const res = await stack.http.get(`/api/v1/payments/${id}/proof`, { key });
          return res.status === 200 && res.body.leaves.length >= 14 ? res.body : undefined;
        },
        30_000,
        'a signed head covering the payment',
      );
      expect(checkProof(proof, publicKey)).toEqual([]);
      const transitions = proof.leaves
        .map((l: { leaf: string }) => JSON.parse(l.leaf))
        .filter((l: { kind: string }) => l.kind === 'payment.transition');
      // The trail holds a reason only as its keyed hash.
      expect(transitions.filter((l: { reason: string | null }) => l.reason !== null).map((l: { reason: string }) => l.reason)).toEqual([
        expect.stringMatching(/^hmac:[0-9a-f]{64}$/),
        expect.stringMatching(/^hmac:[0-9a-f]{64}$/),
        expect.stringMatching(/^hmac:[0-9a-f]{64}$/),
      ]);
    } finally {
      await receiver.close();
    }
  });
  it('a redaction sent the moment a payment finishes reaches what its last publication writes after it; idempotent answers are erased too', async () => {
    const v = personalValues();
    const receiver = await startReceiver();
    try {
      const acct = await stack.newAccount();
      const key = acct.test_api_key;
      await configureWebhook(stack, key, receiver.url);
      const send = async (path: string, body: Record<string, unknown>) => {
        const res = await stack.http.post(path, { key, body, headers: { 'Idempotency-Key': randomUUID() } });
        expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        return res.body;
      };
      const { id } = await send('/api/v1/payments', {
        amount: 42.5,
        currency: 'EUR',
        payer_email: v.payer,
        recipient_email: v.recipient,
        description: v.description,
        metadata: { [v.metadataKey]: v.metadataValue },
      });
      await send(`/api/v1/payments/${id}/deposit`, { reason: v.reason });
      expect(await send(`/api/v1/payments/${id}/refund`, { reason: v.reason })).toMatchObject({ status: 'refunded' });
      // At once: the refund's publication may still be running, with the personal data it read before the erasure.
      const redacted = await stack.http.post(`/api/v1/payments/${id}/redact`, { key });
      expect(redacted.status, JSON.stringify(redacted.body)).toBe(200);
      await eventually(
        async () => ((await stack.client.workflow.getHandle(id).describe()).status.name === 'COMPLETED' ? true : undefined),
        30_000,
        'the run to close',
      );
      const events = await stack.db('webhook_deliveries').where({ payment_id: id }).pluck('event');
      expect(events).toContain('payment.refunded');

      const { stdout: dump } = await run('pg_dump', ['--data-only', stack.config.DATABASE_URL!], { maxBuffer: 512 * 1024 * 1024 });
      expect(dump).toContain(id);
      const { token: _token, ...payments } = v;
      for (const [name, value] of Object.entries(payments))
        expect(dump.includes(value), `${name} (${value}) left in the database`).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});
