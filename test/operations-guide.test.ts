/**
 * docs/operations.md, run verbatim: its bash blocks, in order, in one bash from the project's root,
 * against a real stack whose payment PAY an operator has just terminated. What they print is what
 * the page promises: payments only in the list, readable search attributes, the saved queries, the
 * delivery log, resend and recover, repair, and the ledger check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, bashBlocks, runBash } from './helpers/docPage';
import { startReceiver } from './helpers/receiver';
import { eventually, useStack, validPayment } from './helpers/stack';

const PAGE = path.join(ROOT, 'docs/operations.md');

// One attempt per delivery: a receiver that is down leaves them failed at once, ready to resend.
const stack = useStack({ env: { WEBHOOK_MAX_ATTEMPTS: '1' } });

describe('docs/operations.md', () => {
  it('has a runbook line for every alert of deploy/prometheus/alerts.yml, and each alert points to it', () => {
    const page = fs.readFileSync(PAGE, 'utf8');
    const rules = fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      expect(page).toMatch(new RegExp(`^\\| \`${alert}\`\\s+\\| \\S`, 'm'));
      expect(rules).toContain(`runbook_url: docs/operations.md#alerts-and-their-runbooks (${alert})`);
    }
  });

  it('runs verbatim: lists of payments only, a readable describe, saved queries, deliveries, repair after a terminate, the ledger check', async () => {
    const acct = await stack.newAccount();
    const key = acct.test_api_key;
    // A receiver that is down: every delivery fails.
    const receiver = await startReceiver(() => 503);
    try {
      const hook = await stack.http.post('/api/v1/webhooks/configure', { key, body: { url: receiver.url } });
      expect(hook.status).toBe(201);
      const pay = (await stack.http.post('/api/v1/payments', { key, body: validPayment() })).body.id as string;
      expect((await stack.http.post(`/api/v1/payments/${pay}/deposit`, { key })).status).toBe(200);
      // Due within the hour: in the "deadlines in the next 24 hours" view.
      const soon = await stack.http.post('/api/v1/payments', { key, body: validPayment({ deposit_deadline_seconds: 3600 }) });
      expect(soon.status).toBe(201);
      // A test event: a delivery workflow, which the payments list must not show.
      expect((await stack.http.post(`/api/v1/webhooks/${hook.body.webhook.id}/test`, { key })).status).toBe(202);
      await eventually(async () =>
        (await stack.db('webhook_deliveries').where({ payment_id: pay, status: 'failed' })).length >= 2 ? true : undefined,
      );
      await stack.client.workflow.getHandle(pay).terminate('an operator pressed Terminate');

      const { code, stdout, stderr } = await runBash(bashBlocks(fs.readFileSync(PAGE, 'utf8')).join('\n'), {
        API: `${stack.url}/api/v1`,
        KEY: key,
        ACCOUNT: acct.account_id,
        PAY: pay,
        HOOK: hook.body.webhook.id,
        TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS!,
        DATABASE_URL: stack.config.DATABASE_URL!,
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
      });
      expect(stderr.replace(/npm warn Unknown user config.*\n/g, '')).toBe('');
      expect(code).toBe(0);
      // Payments only: the RecordKind list holds paymentWorkflow rows, never a delivery.
      const lists = stdout.split('\n').filter((l) => /Workflow$|Workflow\s/.test(l));
      expect(lists.some((l) => l.includes('paymentWorkflow'))).toBe(true);
      expect(lists.filter((l) => l.includes('webhookDeliveryWorkflow'))).toEqual([]);
      expect(stdout).toContain(pay);
      expect(stdout).toMatch(/Total: [1-9]/);
      // describe, readable: the search attributes as name=value.
      expect(stdout).toMatch(new RegExp(`SearchAttributes\\s+.*PaymentStatus=in_custody`));
      expect(stdout).toMatch(new RegExp(`Terminated\\s+${pay}\\s+paymentWorkflow`));
      // The saved query "deadlines in the next 24 hours" finds the payment due within the hour.
      expect(stdout).toContain(soon.body.id);
      // The delivery log, a resend and a recovery.
      expect(stdout).toMatch(/dlv_\w+ payment\.\w+ failed after 1 attempt/);
      expect(stdout).toMatch(/resent dlv_\w+/);
      // Recover takes the other failed ones; the one just resent has its series running.
      expect(stdout).toMatch(/recovering [1-9]\d* deliveries, more: false/);
      // Repair after the terminate, then healthy on the second pass.
      expect(stdout).toContain(`${pay} start: in_custody in the read model, but its run is terminated → new run`);
      expect(stdout).toContain(`${pay} healthy: running at version 2`);
      expect(stdout).toContain('ledger verified: every invariant holds');
      expect((await stack.client.workflow.getHandle(pay).describe()).status.name).toBe('RUNNING');
      // And the repaired payment moves again through the API.
      expect((await stack.http.post(`/api/v1/payments/${pay}/approve`, { key })).status).toBe(200);
    } finally {
      await receiver.close();
    }
  });
});
