/**
 * Erasure of a finished payment's personal data and free text (docs/operations.md, "Erasing a
 * payer's data"). Temporal holds none by design (docs/architecture.md), so erasure is a database
 * update; amounts, ledger and custody trail are untouched and still verify.
 */
import type { Knex } from 'knex';
import { TERMINAL_STATUSES } from '../domain/paymentTypes';
import type { PaymentDetails } from '../domain/paymentRecord';
import { isTerminal, nextActions, refusalMessage } from '../domain/payment';
import { scopeOf } from '../domain/tenancy';
import { findPayment } from '../db/payments';
import { redactPayment } from '../db/personal';
import { withDisputeTexts } from '../db/disputeTexts';
import type { Logger } from '../lib/logger';
import { InvalidTransition, NotFound } from './errors';
import type { Call } from './paymentRun';

export function redactionService({ db, logger }: { db: Knex; logger: Logger }) {
  return {
    /** Terminal payments only (a running one still needs its parties); idempotent. */
    async redact(call: Call, id: string): Promise<PaymentDetails> {
      const scope = scopeOf(call.principal);
      const payment = await findPayment(db, scope, id);
      if (!payment) throw new NotFound('payment');
      if (!isTerminal(payment.status)) {
        throw new InvalidTransition(
          payment.status,
          `${refusalMessage('redact', payment.status)}; only ${TERMINAL_STATUSES.join(', ')} payments can be redacted`,
          { allowed: nextActions(payment) },
        );
      }
      await redactPayment(db, scope, id, { actor: call.principal.actor, at: new Date().toISOString() });
      logger.info({ request_id: call.requestId, payment_id: id, actor: call.principal.actor }, 'payment redacted');
      return withDisputeTexts(db, (await findPayment(db, scope, id))!);
    },
  };
}

export type RedactionService = ReturnType<typeof redactionService>;
