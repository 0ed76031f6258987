/**
 * Erasure of a finished payment's personal data and free text (docs/operations.md, "Erasing a
 * payer's data"). Temporal holds none by design (docs/architecture.md), so erasure is a database
 * update; amounts, ledger and custody trail are untouched and still verify.
 */
import type { Knex } from 'knex';
import { TERMINAL_STATUSES } from './paymentTypes.rules';
import type { PaymentDetails } from './paymentRecord.rules';
import { isTerminal, nextActions, refusalMessage } from './payment.rules';
import { scopeOf } from '../tenants/tenancy.rules';
import { findPayment } from './payments.repository';
import { redactPayment } from './personalData.repository';
import { withDisputeTexts } from './disputeTexts.repository';
import type { Logger } from '../platform/lib/logger';
import { InvalidTransition, NotFound } from '../platform/useCaseErrors';
import type { Call } from './paymentRun.service';

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
