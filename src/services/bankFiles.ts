/**
 * The bank's answers about live payouts (docs/payouts.md, "What the service reads"): a pain.002,
 * camt.054 or camt.053 read (src/bankFiles/read.ts), matched to the account's payouts by EndToEndId
 * (src/bankFiles/match.ts), each matched entry's steps sent to its payout's workflow, and the file
 * recorded once by its message id with the answer, which a resend gets again and which changes nothing.
 */
import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { BankFileError } from '../bankFiles/errors';
import { type PayoutSnapshot, planBankFile } from '../bankFiles/match';
import { readBankFile } from '../bankFiles/read';
import { minorUnits } from '../domain/money';
import type { PayoutAction, PayoutFailureCode } from '../domain/payout';
import { type Scope, scopeOf } from '../domain/tenancy';
import { bankFileByMessageId, findBankFile, recordBankFile } from '../db/bankFiles';
import { type PayoutRow, payoutsForBankFile } from '../db/payouts';
import { type BankFileView, bankFileView } from '../views/bankFileView';
import { bankOutcomeUpdate } from '../workflows';
import { withinDeadline } from './deadline';
import { Forbidden, InvalidInput, NotFound, isClosedRun } from './errors';
import type { Call } from './paymentRun';

const snapshot = (p: PayoutRow): PayoutSnapshot => ({
  id: p.id,
  endToEndId: p.end_to_end_id,
  status: p.status,
  amount: BigInt(p.amount),
  currency: p.currency,
  messageId: p.message_id,
});

export function bankFilesService({ db, temporal }: { db: Knex; temporal: Client }) {
  /**
   * One step of a payout, as the bank reported it; false when its workflow refuses it (the same file
   * sent twice at once took it first) or its run has closed (a return after PAYOUT_RETURN_WINDOW).
   */
  async function tell(call: Call, payoutId: string, action: PayoutAction, failureCode: PayoutFailureCode | null): Promise<boolean> {
    if (action === 'cancel') return false;
    const outcome = action === 'fail' || action === 'return' ? { action, failureCode: failureCode ?? 'could_not_process' } : { action };
    try {
      await withinDeadline(
        temporal,
        () => temporal.workflow.getHandle(payoutId).executeUpdate(bankOutcomeUpdate, { args: [outcome] }),
        call.deadline,
      );
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError) && !isClosedRun(err)) throw err;
      return false;
    }
    return true;
  }

  return {
    /** A bank file as it came (live mode only): taken once by its message id; `first` false when it was taken before. */
    async receive(call: Call, raw: Buffer): Promise<{ first: boolean; view: BankFileView }> {
      if (!call.principal.livemode) {
        throw new Forbidden('bank files are about live payouts: send them with a live key (test payouts are paid by the simulated bank)');
      }
      const scope = scopeOf(call.principal);
      let file;
      try {
        file = readBankFile(raw);
      } catch (err) {
        if (err instanceof BankFileError) throw new InvalidInput([{ field: 'body', message: `${err.reason}: ${err.message}` }]);
        throw err;
      }
      const earlier = await bankFileByMessageId(db, scope, file.messageId);
      if (earlier) return { first: false, view: earlier.answer as BankFileView };
      const endToEndIds = [...new Set(file.entries.flatMap((e) => (e.endToEndId === null ? [] : [e.endToEndId])))];
      const rejectedFile = file.groupStatus === 'RJCT' ? file.originalMessageId : null;
      const { byEndToEndId, ofFile } = await payoutsForBankFile(db, scope, endToEndIds, rejectedFile);
      const plan = planBankFile(file, new Map(byEndToEndId.map((p) => [p.end_to_end_id, snapshot(p)])), ofFile.map(snapshot));
      // The steps first, the record after: a file whose steps were cut short is taken again whole when sent again.
      const entries: typeof plan.entries = [];
      const unmatched = [...plan.unmatched];
      for (const entry of plan.entries) {
        let taken = true;
        for (const action of entry.steps) if (taken) taken = await tell(call, entry.payoutId, action, entry.failureCode);
        // What its payout's workflow would not take is an operator's, as any entry that cannot follow the payout's status.
        if (taken) entries.push(entry);
        else unmatched.push({ endToEndId: entry.endToEndId, amount: entry.amount, currency: entry.currency, reason: 'status_conflict' });
      }
      const id = `bf_${call.resourceId ?? ulid()}`;
      const view = bankFileView({ id, messageId: file.messageId, messageType: file.messageType, entries, unmatched }, minorUnits);
      const { row, first } = await recordBankFile(db, {
        id,
        account_id: scope.accountId,
        livemode: scope.livemode,
        message_id: file.messageId,
        message_type: file.messageType,
        answer: view,
        created_at: new Date(),
      });
      return { first, view: row.answer as BankFileView };
    },

    async get(scope: Scope, id: string): Promise<BankFileView> {
      const row = await findBankFile(db, scope, id);
      if (!row) throw new NotFound('bank file');
      return row.answer as BankFileView;
    },
  };
}

export type BankFilesService = ReturnType<typeof bankFilesService>;
