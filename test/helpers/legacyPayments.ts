import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/** A step of a payment written before a migration: action, from, to. */
export type LegacyStep = [string, string | null, string];

/**
 * A payment as an older release left it (its row and history only), for the migration tests: the
 * migration under test must derive the rest.
 */
export async function legacyPayment(db: Knex, accountId: string, amountMinor: number, steps: LegacyStep[]): Promise<string> {
  const id = `pay_${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`;
  const at = new Date('2026-11-01T10:00:00Z');
  const [, , status] = steps.at(-1)!;
  await db('payments').insert({
    id,
    account_id: accountId,
    livemode: false,
    amount_minor: amountMinor,
    amount_exponent: 2,
    currency: 'USD',
    status,
    payer_email: 'payer@example.com',
    recipient_email: 'recipient@example.com',
    metadata: '{}',
    deposit_deadline: at,
    created_at: at,
    updated_at: at,
    version: steps.length,
  });
  await db('payment_events').insert(
    steps.map(([action, from, to], i) => ({
      payment_id: id,
      seq: i + 1,
      action,
      from_status: from,
      to_status: to,
      event: `payment.${action}`,
      actor: 'key_legacy',
      at: new Date(at.getTime() + i * 1000),
    })),
  );
  return id;
}
