/**
 * A recipient's bank accounts (docs/payouts.md, "Bank accounts"): add one (its number checked,
 * sealed, fingerprinted), list them, delete one. The keys derive from WEBHOOK_SECRET_KEY.
 */
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { type Config, webhookSecretKey } from '../platform/config';
import {
  type BankAccountKeys,
  canonicalNumber,
  checkBankAccountNumber,
  deriveBankAccountKeys,
  fingerprintOf,
  last4Of,
} from './bankAccounts.rules';
import type { Scope } from '../tenants/tenancy.rules';
import { type BankAccountRow, deleteBankAccount, insertBankAccount, listBankAccounts } from './bankAccounts.repository';
import { findRecipient } from '../recipients/recipients.repository';
import { sealBankAccountNumber } from '../platform/lib/sealedBox';
import { BankAccountInUse, InvalidInput, NotFound, RecipientErased } from '../platform/useCaseErrors';
import { notErased } from '../recipients/recipients.service';
import type { Call } from '../payments/paymentRun.service';

export interface NewBankAccountInput {
  account_holder_name: string;
  country: string;
  currency: string;
  iban?: string | undefined;
  routing_number?: string | undefined;
  account_number?: string | undefined;
}

/** Derived once per configuration. */
const keysOf = new WeakMap<Config, BankAccountKeys>();

export function bankAccountsService({ db, config }: { db: Knex; config: Config }) {
  const keys = () => {
    let k = keysOf.get(config);
    if (!k) {
      k = deriveBankAccountKeys(webhookSecretKey(config));
      keysOf.set(config, k);
    }
    return k;
  };

  async function recipientOf(scope: Scope, recipientId: string) {
    const r = await findRecipient(db, scope, recipientId);
    if (!r) throw new NotFound('recipient');
    return r;
  }

  return {
    async create(call: Call, recipientId: string, input: NewBankAccountInput): Promise<BankAccountRow> {
      const scope = { accountId: call.principal.accountId, livemode: call.principal.livemode };
      notErased(await recipientOf(scope, recipientId));
      const check = checkBankAccountNumber(input);
      // The request schema ran the same check: this is the use case holding its own rule.
      if (!check.ok) throw new InvalidInput([{ field: check.problem.field, message: check.problem.message }]);
      const id = `ba_${call.resourceId ?? ulid()}`;
      const row = await insertBankAccount(db, scope, {
        id,
        account_id: scope.accountId,
        livemode: scope.livemode,
        recipient_id: recipientId,
        account_holder_name: input.account_holder_name,
        country: input.country,
        currency: input.currency,
        last4: last4Of(check.number),
        fingerprint: fingerprintOf(keys().fingerprintKey, scope, check.number),
        number_sealed: sealBankAccountNumber(canonicalNumber(check.number), id, keys().sealKey),
        created_at: new Date(),
      });
      if (!row) throw new NotFound('recipient');
      if ('erasedAt' in row) throw new RecipientErased(recipientId, row.erasedAt);
      return row;
    },

    async list(scope: Scope, recipientId: string): Promise<BankAccountRow[]> {
      await recipientOf(scope, recipientId);
      return listBankAccounts(db, scope, recipientId);
    },

    async remove(scope: Scope, recipientId: string, id: string): Promise<void> {
      await recipientOf(scope, recipientId);
      const deleted = await deleteBankAccount(db, scope, recipientId, id);
      if (!deleted) throw new NotFound('bank_account');
      if (deleted !== true) throw new BankAccountInUse(id, deleted.waitingPayout);
    },
  };
}

export type BankAccountsService = ReturnType<typeof bankAccountsService>;
