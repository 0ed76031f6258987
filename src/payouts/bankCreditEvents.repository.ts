/**
 * A bank credit's events (docs/webhooks.md, "Bank credit events"): `bank_credit.received`,
 * `bank_credit.applied` and `bank_credit.returned`, rows of the one outbox with their deliveries
 * (`recordEvent`, src/webhooks/deliveryPlan.repository.ts), the credit in `data` as the API shows it
 * (its debtor as last4 only: docs/bank.md, "Unapplied credits"). Only a credit of an account is an
 * event, of that account; the operator's (no account) is no tenant's.
 */
import type { Knex } from 'knex';
import { OWN_EVENT_ORDINAL } from '../payments/transitionEvents.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { recordEvent } from '../webhooks/deliveryPlan.repository';
import type { BankCreditEvent } from './bankCredit.rules';
import { bankCreditEnvelope } from './bankCredit.view';
import type { BankCreditRow } from './bankCredits.repository';

/** The deliveries an event owes and has not attempted yet, as the caller starts them on the one road (docs/webhooks.md). */
export interface OwedDeliveries {
  scope: Scope;
  deliveries: { id: string; webhook_id: string; event: string }[];
}

/**
 * Record the credit's `type` event at its version, and its deliveries, in `db`'s transaction (one of
 * its own when `db` is none); answers what the caller starts. `received` of a credit a payment took
 * as it was booked shares its version with that `applied`, and comes first (a lower ordinal, as a
 * payment's split's events). Idempotent: the same event again records nothing and answers its
 * deliveries not attempted yet. An operator's credit records nothing.
 */
export async function recordBankCreditEvent(
  db: Knex | Knex.Transaction,
  credit: BankCreditRow,
  type: BankCreditEvent,
): Promise<OwedDeliveries> {
  if (credit.account_id === null) return { scope: { accountId: '', livemode: credit.livemode }, deliveries: [] };
  const scope: Scope = { accountId: credit.account_id, livemode: credit.livemode };
  const ordinal = type === 'bank_credit.received' && credit.status === 'applied' ? OWN_EVENT_ORDINAL - 1 : OWN_EVENT_ORDINAL;
  const record = async (tx: Knex.Transaction) => {
    const eventId = await recordEvent(tx, {
      scope,
      objectId: credit.id,
      owner: { bank_credit_id: credit.id },
      envelope: bankCreditEnvelope(credit, type),
      ordinal,
    });
    const deliveries = await tx<{
      id: string;
      webhook_id: string;
      event: string;
      event_id: string;
      bank_credit_id: string;
      status: string;
      attempts: number;
      created_at: Date;
    }>('webhook_deliveries')
      .where({ event_id: eventId, bank_credit_id: credit.id, status: 'pending', attempts: 0 })
      .orderBy(['created_at', 'id'])
      .select('id', 'webhook_id', 'event');
    return { scope, deliveries };
  };
  return db.isTransaction ? record(db as Knex.Transaction) : (db as Knex).transaction(record);
}
