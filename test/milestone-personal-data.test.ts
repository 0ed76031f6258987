/**
 * A milestone's reference, description and recipient are personal data (docs/architecture.md,
 * "Personal data"): nothing Temporal prints of a payment with milestones holds them, and a
 * redaction erases them from the payment, its events and its deliveries.
 */
import { describe, expect, it } from 'vitest';
import { startReceiver } from './helpers/receiver';
import { paymentsOf, twoMilestones } from './helpers/milestones';
import { eventually, useAccount, useStack } from './helpers/stack';
import { FAST_WEBHOOK_RETRIES, configureWebhook } from './helpers/webhooks';
import { temporalCli } from './helpers/temporalCli';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });
const acct = useAccount(stack);

/** Distinctive values for each milestone's personal fields, none of which the service's own text could contain. */
function personalValues() {
  const tag = Math.random().toString(36).slice(2, 10);
  return {
    firstReference: `phase-one-${tag}`,
    firstDescription: `Carol's kitchen cabinets ${tag}`,
    firstRecipient: `erin.joiner.${tag}@example.com`,
    secondReference: `phase-two-${tag}`,
    secondDescription: `Carol's worktop ${tag}`,
    secondRecipient: `frank.mason.${tag}@example.com`,
  };
}

describe('personal data of milestones', () => {
  it('never enters Temporal, and a redaction erases it from the payment, its events and its deliveries', async () => {
    const v = personalValues();
    const api = paymentsOf(stack, acct.test_api_key);
    // The first attempt of every delivery fails, so that each runs as a delivery activity too.
    const tried = new Set<string>();
    const receiver = await startReceiver((_n, req) => {
      const id = String(req.headers['webhook-id']);
      if (tried.has(id)) return 200;
      tried.add(id);
      return 503;
    });
    try {
      await configureWebhook(stack, api.key, receiver.url);
      const p = await api.create(
        twoMilestones({
          milestones: [
            { reference: v.firstReference, description: v.firstDescription, amount: 60, recipient_email: v.firstRecipient },
            { reference: v.secondReference, description: v.secondDescription, amount: 40, recipient_email: v.secondRecipient },
          ],
        }),
      );
      const ms = api.ids(p);
      const first = ms[v.firstReference];
      const second = ms[v.secondReference];
      await api.ok(p.id, 'deposit');
      await api.okOn(p.id, first, 'approve');
      await api.okOn(p.id, first, 'release');
      await api.okOn(p.id, second, 'dispute');
      const done = await api.okOn(p.id, second, 'resolve', { resolution: 'split', refund_amount: 15 });
      // The answers show them: the service keeps them.
      expect(done.milestones.map((m: any) => [m.reference, m.description, m.recipient_email])).toEqual([
        [v.firstReference, v.firstDescription, v.firstRecipient],
        [v.secondReference, v.secondDescription, v.secondRecipient],
      ]);
      const eventCount = (await api.get(`/events?payment_id=${p.id}&limit=100`)).data.length;
      // Each delivered after its failed first attempt.
      await eventually(async () => (receiver.received.length >= 2 * eventCount ? true : undefined), 30_000, 'every delivery');
      expect(receiver.received.some((r) => r.body.milestone?.reference === v.secondReference)).toBe(true);
      await eventually(
        async () => ((await stack.client.workflow.getHandle(p.id).describe()).status.name === 'COMPLETED' ? true : undefined),
        30_000,
        'the run to close',
      );

      const shown = [
        temporalCli(['workflow', 'show', '--workflow-id', p.id, '--output', 'json']),
        temporalCli(['workflow', 'describe', '--workflow-id', p.id, '--output', 'json']),
      ].join('\n');
      expect(shown).toContain(p.id);
      // The milestones are there, by id and amount.
      expect(shown).toContain(first);
      expect(shown).toContain(second);
      for (const [name, value] of Object.entries(v))
        expect(shown.includes(value), `${name} (${value}) readable through Temporal`).toBe(false);

      // The CLI blocked this process for seconds: let it see the keep-alive connections the API closed
      // meanwhile before the next request, which would otherwise be written to one of them (ECONNRESET).
      await new Promise((resolve) => setTimeout(resolve, 20));
      const redacted = await api.ok(p.id, 'redact');
      expect(redacted.milestones.map((m: any) => [m.id, m.reference, m.description, m.recipient_email, m.amount_released])).toEqual([
        [first, '[redacted]', '[redacted]', '[redacted]', 60],
        [second, '[redacted]', '[redacted]', '[redacted]', 25],
      ]);
      expect(await api.get(`/payments/${p.id}`)).toEqual(redacted);
      const events = (await api.get(`/events?payment_id=${p.id}&limit=100`)).data as any[];
      expect(events).toHaveLength(eventCount);
      for (const e of events) {
        expect(
          e.data.milestones.map((m: any) => [m.reference, m.description, m.recipient_email]),
          e.type,
        ).toEqual([
          ['[redacted]', '[redacted]', '[redacted]'],
          ['[redacted]', '[redacted]', '[redacted]'],
        ]);
      }
      // A milestone event's delivery names its milestone, erased as the payment's data is.
      const bodies = (await stack.db('webhook_deliveries').where({ payment_id: p.id })).map((d) => JSON.parse(d.body));
      expect(bodies).toHaveLength(eventCount);
      const named = bodies.filter((b) => b.milestone);
      expect(named.map((b) => b.event).sort()).toEqual([
        'payment.milestone_approved',
        'payment.milestone_disputed',
        'payment.milestone_released',
        'payment.milestone_released',
      ]);
      for (const b of named) {
        expect([b.milestone.reference, b.milestone.description, b.milestone.recipient_email]).toEqual([
          '[redacted]',
          '[redacted]',
          '[redacted]',
        ]);
        expect(Object.keys(b)).toEqual(['event', 'payment_id', 'timestamp', 'sequence', 'milestone', 'data']);
      }
      // Nowhere the service keeps the payment's rows holds them any more.
      for (const [table, column] of [
        ['payments', 'id'],
        ['payment_personal', 'payment_id'],
        ['events', 'payment_id'],
        ['payment_events', 'payment_id'],
        ['webhook_deliveries', 'payment_id'],
      ] as const) {
        const rows = JSON.stringify(await stack.db(table).where({ [column]: p.id }));
        expect(rows).toContain(p.id);
        for (const [name, value] of Object.entries(v)) expect(rows.includes(value), `${name} (${value}) left in ${table}`).toBe(false);
      }
      expect(await stack.services.ledger.verify(acct.account_id)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
