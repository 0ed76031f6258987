/** Every use case of the service, built once from its dependencies (by the stack builder). */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { type Config, jwtSecret } from '../config';
import type { Logger } from '../lib/logger';
import { accountsService } from './accounts';
import { auditService } from './audit';
import { bankAccountsService } from './bankAccounts';
import { eventsService } from './events';
import { healthService } from './health';
import { idempotencyService } from './idempotency';
import { ledgerService } from './ledger';
import { modesService } from './modes';
import { paymentsService } from './payments';
import { payoutsService } from './payouts';
import { bankFilesService } from './bankFiles';
import { recipientsService } from './recipients';
import { redactionService } from './redaction';
import { repairService } from './repair';
import { webhooksService } from './webhooks';

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
