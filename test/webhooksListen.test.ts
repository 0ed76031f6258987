/**
 * `npm run webhooks:listen`: the command configures a test-mode webhook, verifies and prints each
 * delivery, forwards it with its signature headers, and removes the configuration on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../src';
import { startReceiver } from './helpers/receiver';
import { eventually, startStack, validPayment, type Stack } from './helpers/stack';

const SCRIPT = path.resolve(__dirname, '../scripts/webhooks-listen.ts');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

describe('npm run webhooks:listen', () => {
  it('prints the secret, verifies and forwards a delivery, and removes its configuration on Ctrl-C', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    const target = await startReceiver();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', SCRIPT, '--api', `${stack.url}/api/v1`, '--api-key', key, '--forward-to', target.url],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const secret = await eventually(async () => /Signing secret: (whsec_\S+)/.exec(output)?.[1], 30_000, 'the secret');
      const listed = (await stack.http.get('/api/v1/webhooks', { key })).body.data;
      expect(listed).toHaveLength(1);

      const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      expect(p.status).toBe(201);
      const line = await eventually(
        async () => output.split('\n').find((l) => l.includes('payment.created') && l.includes(p.body.id)),
        30_000,
        'the delivery line',
      );
      expect(line).toMatch(/verified \(standard-webhooks\)\s+→ 200/);
      const forwarded = await eventually(async () => target.received.find((r) => r.body?.payment_id === p.body.id), 10_000, 'the forward');
      expect(forwarded.body.event).toBe('payment.created');
      expect(verifyWebhook(forwarded.raw, forwarded.headers, secret)).toEqual({ ok: true, scheme: 'standard-webhooks' });

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toMatch(/Removed webhook wh_/);
      expect((await stack.http.get('/api/v1/webhooks', { key })).body.data).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await target.close();
    }
  });
});
