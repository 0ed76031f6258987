/** Every use case of the service, built once from its dependencies (by the stack builder). */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { type Config, jwtSecret } from './config';
import type { Logger } from './lib/logger';
import { accountsService } from '../tenants/tenants.service';
import { auditService } from '../audit/audit.service';
import { bankAccountsService } from '../payouts/bankAccounts.service';
import { eventsService } from '../webhooks/events.service';
import { healthService } from './health.service';
import { idempotencyService } from './idempotency.service';
import { ledgerService } from '../ledger/ledgerCheck.service';
import { modesService } from '../tenants/modes.service';
import { paymentsService } from '../payments/payments.service';
import { payoutsService } from '../payouts/payouts.service';
import { bankFilesService } from '../payouts/bankFiles.service';
import { bankCreditsService } from '../payouts/bankCredits.service';
import { recipientsService } from '../recipients/recipients.service';
import { redactionService } from '../payments/redaction.service';
import { repairService } from '../payments/repair.service';
import { webhooksService } from '../webhooks/webhooks.service';

export interface ServiceDeps {
  db: Knex;
  temporal: Client;
  config: Config;
  logger: Logger;
}

export function createServices(deps: ServiceDeps) {
  return {
    payments: paymentsService(deps),
    redaction: redactionService(deps),
    recipients: recipientsService(deps),
    bankAccounts: bankAccountsService(deps),
    payouts: payoutsService(deps),
    bankFiles: bankFilesService(deps),
    bankCredits: bankCreditsService(deps),
    events: eventsService(deps),
    ledger: ledgerService(deps),
    webhooks: webhooksService(deps),
    accounts: accountsService({
      db: deps.db,
      jwtSecret: () => jwtSecret(deps.config),
      passwordHashing: { concurrency: deps.config.PASSWORD_HASH_CONCURRENCY, queue: deps.config.PASSWORD_HASH_QUEUE },
      maxApiKeys: deps.config.MAX_API_KEYS_PER_ACCOUNT,
    }),
    idempotency: idempotencyService(deps),
    modes: modesService(deps),
    health: healthService(deps),
    repair: repairService(deps),
    audit: auditService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
