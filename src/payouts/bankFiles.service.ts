/**
 * A tenant's view of the bank's files (docs/bank.md): the files are the operator's, taken from the
 * inbox by the worker (src/payouts/bankInbox.activities.ts), and a tenant sees of each only the entries that
 * touched its own payouts; a file that touched none is, to it, no file at all. Files posted on the
 * retired road (`POST /api/v1/bank_files`) are still shown to the account that posted them.
 */
import type { Knex } from 'knex';
import { type BankFileRecord, findBankFile, postedBy } from './bankFiles.repository';
import type { Scope } from '../tenants/tenancy.rules';
import type { BankFileView } from './bankFile.view';
import { NotFound } from '../platform/useCaseErrors';

export function bankFilesService({ db }: { db: Knex }) {
  return {
    async get(scope: Scope, id: string): Promise<BankFileView> {
      const row = await findBankFile(db, id);
      if (row && postedBy(row, scope)) return row.answer as BankFileView;
      // The operator's files are about live payouts only; one still being taken is shown once it is taken.
      if (!row || row.account_id !== null || row.answer === null || !scope.livemode) throw new NotFound('bank file');
      const record = row.answer as BankFileRecord;
      const entries = record.entries.filter((e) => e.account === scope.accountId);
      const unmatched = record.unmatched.filter((u) => u.account === scope.accountId);
      if (entries.length === 0 && unmatched.length === 0) throw new NotFound('bank file');
      return {
        id: row.id,
        object: 'bank_file',
        message_id: row.message_id,
        message_type: row.message_type as BankFileView['message_type'],
        entries: entries.map(({ account: _a, ...e }) => ({ ...e, outcome: e.outcome as BankFileView['entries'][number]['outcome'] })),
        unmatched: unmatched.map(({ account: _a, payout: _p, ...u }) => ({
          ...u,
          reason: u.reason as BankFileView['unmatched'][number]['reason'],
        })),
      };
    },
  };
}

export type BankFilesService = ReturnType<typeof bankFilesService>;
