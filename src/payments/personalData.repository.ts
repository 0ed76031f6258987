/**
 * Where a payment's personal data and its reasons' text are kept (never in Temporal), and their
 * erasure (docs/architecture.md, "Personal data"; docs/operations.md, "Erasing a payer's data").
 */
import type { Knex } from 'knex';
import { type PersonalData, REDACTED, redactMilestoneView, redactView, redactedPersonal } from './personalData.rules';
import type { Scope } from '../tenants/tenancy.rules';

/** Written by the API before the payment's workflow starts; a retried create writes nothing twice. */
export async function savePersonal(db: Knex, paymentId: string, p: PersonalData): Promise<void> {
  await db('payment_personal')
    .insert({
      payment_id: paymentId,
      payer_email: p.payerEmail,
      recipient_email: p.recipientEmail,
      description: p.description,
      metadata: JSON.stringify(p.metadata),
      milestones: p.milestones ? JSON.stringify(p.milestones) : null,
    })
    .onConflict('payment_id')
    .ignore();
}

/** What the API kept for the payment; undefined for payments created before it kept it apart. */
export async function findPersonal(db: Knex | Knex.Transaction, paymentId: string): Promise<PersonalData | undefined> {
  const row = await db('payment_personal').where({ payment_id: paymentId }).first();
  if (!row) return undefined;
  return {
    payerEmail: row.payer_email,
    recipientEmail: row.recipient_email,
    description: row.description,
    metadata: row.metadata ?? {},
    milestones: row.milestones,
  };
}

/** A transition's reason, kept under its keyed hash before the update that carries the hash. */
export async function saveReason(db: Knex, paymentId: string, hash: string, reason: string): Promise<void> {
  await db('payment_reasons')
    .insert({ payment_id: paymentId, reason_hash: hash, reason })
    .onConflict(['payment_id', 'reason_hash'])
    .ignore();
}

interface Redaction {
  actor: string;
  at: string;
}

export async function findRedaction(db: Knex, paymentId: string): Promise<Redaction | undefined> {
  const row = await db('payment_redactions').where({ payment_id: paymentId }).first();
  return row ? { actor: row.actor, at: (row.redacted_at as Date).toISOString() } : undefined;
}

/**
 * A JSON text with the payment view in it (at its top or under `data`) erased, and a milestone
 * event's `milestone` beside that `data` (src/webhooks/webhookEnvelope.view.ts); other texts unchanged.
 */
function redactedJson(text: string, paymentId: string): string {
  const value = JSON.parse(text) as Record<string, unknown> | null;
  if (value?.object === 'payment' && value.id === paymentId) return JSON.stringify(redactView(value));
  const data = value?.data as Record<string, unknown> | undefined;
  if (data?.object === 'payment' && data.id === paymentId) {
    const milestone = value!.milestone as Record<string, unknown> | undefined;
    return JSON.stringify({ ...value, ...(milestone ? { milestone: redactMilestoneView(milestone) } : {}), data: redactView(data) });
  }
  return text;
}

/**
 * An erased payment's events, delivery bodies and receivers' answers, erased: by the erasure, and
 * again by a publication that wrote some after it from personal data it had read before.
 */
export async function eraseMessages(db: Knex | Knex.Transaction, paymentId: string): Promise<void> {
  for (const event of await db('events').where({ payment_id: paymentId }).select('id', 'data')) {
    await db('events')
      .where({ id: event.id })
      .update({ data: redactedJson(JSON.stringify(event.data), paymentId) });
  }
  const deliveries = await db('webhook_deliveries').where({ payment_id: paymentId }).select('id', 'body');
  for (const delivery of deliveries) {
    await db('webhook_deliveries')
      .where({ id: delivery.id })
      .update({ body: redactedJson(delivery.body, paymentId) });
  }
  // A receiver's answer may echo what it was sent.
  await db('webhook_delivery_attempts')
    .whereIn(
      'delivery_id',
      deliveries.map((d) => d.id),
    )
    .whereNotNull('response_excerpt')
    .update({ response_excerpt: REDACTED });
}

/**
 * Whether the payment was erased. An erasure in progress holds the payment's row (FOR UPDATE), so
 * it is waited for: what it did not see, the caller erases after it.
 */
export async function wasRedacted(db: Knex, paymentId: string): Promise<boolean> {
  await db.raw('SELECT 1 FROM payments WHERE id = ? FOR SHARE', [paymentId]);
  return (await db('payment_redactions').where({ payment_id: paymentId }).first()) !== undefined;
}

/**
 * Erase a payment's personal data and free text everywhere the service keeps them, in one
 * transaction: read model, kept personal data and reasons, history reasons (a client's; the
 * service's own timer reasons stay), events, delivery bodies and receivers' answers, stored
 * idempotent answers. Amounts, ledger and custody trail are untouched. Idempotent: the first
 * erasure's actor and time are the ones recorded.
 */
export async function redactPayment(db: Knex, scope: Scope, paymentId: string, redaction: Redaction): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await tx('payments').where({ id: paymentId, account_id: scope.accountId, livemode: scope.livemode }).forUpdate().first();
    if (!row) return;
    const erased = redactedPersonal({
      payerEmail: row.payer_email,
      recipientEmail: row.recipient_email,
      description: row.description,
      metadata: row.metadata ?? {},
      milestones: row.milestone_personal,
    });
    const columns = {
      payer_email: erased.payerEmail,
      recipient_email: erased.recipientEmail,
      description: erased.description,
      metadata: JSON.stringify(erased.metadata),
    };
    const milestones = erased.milestones ? JSON.stringify(erased.milestones) : null;
    await tx('payments')
      .where({ id: paymentId })
      .update({ ...columns, milestone_personal: milestones });
    await tx('payment_personal')
      .where({ payment_id: paymentId })
      .update({ ...columns, milestones });
    await tx('payment_reasons').where({ payment_id: paymentId }).update({ reason: REDACTED });
    await tx('payment_events')
      .where({ payment_id: paymentId })
      .whereNotNull('reason')
      .whereNot({ actor: 'system' })
      .update({ reason: REDACTED });
    await eraseMessages(tx, paymentId);
    // The payer's name and account in the bank's credits for it (docs/bank.md): the last four characters stay.
    await tx('bank_credits').where({ payment_id: paymentId }).update({ debtor_name: null, debtor_iban: null });
    const answers = await tx('idempotency_keys')
      .where({ account_id: scope.accountId, livemode: scope.livemode })
      .andWhere('response_body', 'like', `%${JSON.stringify(paymentId)}%`)
      .select('key', 'response_body');
    for (const answer of answers) {
      const body = redactedJson(answer.response_body, paymentId);
      if (body !== answer.response_body) {
        await tx('idempotency_keys')
          .where({ account_id: scope.accountId, livemode: scope.livemode, key: answer.key })
          .update({ response_body: body });
      }
    }
    await tx('payment_redactions')
      .insert({ payment_id: paymentId, actor: redaction.actor, redacted_at: new Date(redaction.at) })
      .onConflict('payment_id')
      .ignore();
  });
}
