/**
 * A dispute's texts (its reason, evidence, offers' notes): personal data, kept in `payment_reasons`
 * under their keyed hashes like a transition's reason, never in Temporal nor in the read model's
 * `disputes` column, and erased with the payment's other free text (docs/architecture.md).
 */
import type { Knex } from 'knex';
import type { PaymentDetails, PaymentRecord } from './paymentRecord.rules';
import { disputeHashes, withTexts } from './personalData.rules';

/** The payment with its disputes' texts; a payment never disputed is answered as it is, without a query. */
export async function withDisputeTexts(db: Knex | Knex.Transaction, state: PaymentRecord): Promise<PaymentDetails> {
  const { disputes, ...rest } = state;
  if (!disputes) return rest;
  const hashes = disputeHashes(disputes);
  const rows: { reason_hash: string; reason: string }[] =
    hashes.length === 0
      ? []
      : await db('payment_reasons').where({ payment_id: state.id }).whereIn('reason_hash', hashes).select('reason_hash', 'reason');
  return { ...rest, disputes: withTexts(disputes, new Map(rows.map((r) => [r.reason_hash, r.reason]))) };
}
