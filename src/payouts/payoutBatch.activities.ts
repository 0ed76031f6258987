/**
 * Live payouts' credit transfer files (docs/payouts.md, "Live mode"; docs/bank.md, "The outbox"):
 * the pending live payouts put in the batch's file (each workflow takes the `enterFile` update
 * first, so a cancel racing the batch either wins before the payout is in the file or is refused),
 * recorded under their file's MsgId (the batch's, with `-S` for SEPA credit transfers and `-X` for
 * the others: banks take them as different orders), each written as a pain.001.001.09 file into
 * PAYOUT_OUTBOX_DIR (written, flushed, renamed), and only then sent (`in_transit`). A retry with the same MsgId
 * writes the same file (src/payouts/outboxFile.ts): a worker killed anywhere in between neither loses a
 * payout nor puts it in two files, and no payout is `in_transit` in no file. Returns and refunds paid
 * back by transfer (docs/bank.md, "Returns") go in the same files, recorded and marked the same way.
 */
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { custodyAccount, webhookSecretKey } from '../platform/config';
import { buildPain001, isSepaTransfer } from './pain001.format';
import { CUSTODY_ACCOUNT_MISSING } from '../platform/failures.rules';
import { type BankAccountNumber, deriveBankAccountKeys, parseCanonicalNumber } from './bankAccounts.rules';
import { assignBatch, batchPayouts, unbatchedLivePayouts } from './payouts.repository';
import { SEPA_NAME_MAX, isSepaText } from './sepaText.rules';
import { openBankAccountNumber } from '../platform/lib/sealedBox';
import { writeOutboxFile } from './outboxFile';
import {
  assignReturns,
  failReturn,
  fileReturns,
  makeRefundReturns,
  markReturnsInFile,
  payableDebtor,
  unfiledReturns,
} from './bankReturns.repository';
import type { ActivityResourcesWithClient } from '../platform/activityResources';

const payableName = (name: string) => name.length > 0 && name.length <= SEPA_NAME_MAX && isSepaText(name);

/** The most payouts one batch carries; the next batch takes the rest. */
export const PAYOUTS_PER_FILE = 1000;

/** The MsgId of the batch's file for SEPA credit transfers (`-S`) or the others (`-X`): at most 35 characters. */
export const fileMessageId = (batchMessageId: string, sepa: boolean) => `${batchMessageId.slice(0, 33)}-${sepa ? 'S' : 'X'}`;

export function payoutBatchActivities({ db, config, temporal, logger }: ActivityResourcesWithClient) {
  /** An update of a payout's workflow (by name); false when the workflow refuses it (a cancel came first) or its run is over. */
  async function tell(payoutId: string, update: 'bankOutcome' | 'enterFile', arg: unknown): Promise<boolean> {
    try {
      await temporal.workflow.getHandle(payoutId).executeUpdate(update, { args: [arg] });
      return true;
    } catch (err) {
      const closed = err instanceof WorkflowNotFoundError || (err instanceof ServiceError && /already completed/i.test(err.message));
      if (err instanceof WorkflowUpdateFailedError || closed) return false;
      throw err;
    }
  }

  /** The debtor of every file, checked before anything is sent: without it no payout leaves `pending`. */
  function custodyAccountOrFail() {
    try {
      return custodyAccount(config);
    } catch (err) {
      throw ApplicationFailure.nonRetryable(err instanceof Error ? err.message : String(err), CUSTODY_ACCOUNT_MISSING);
    }
  }

  return {
    /**
     * One batch under `messageId` (the batch workflow's, the same on every retry): its payouts sent,
     * recorded and written, SEPA credit transfers in one file and the others in another.
     */
    async writePayoutBatch(input: {
      messageId: string;
      createdAtMs: number;
    }): Promise<{ payouts: number; written: boolean; files: string[] }> {
      const debtor = custodyAccountOrFail();
      const key = deriveBankAccountKeys(webhookSecretKey(config)).sealKey;
      const numberOf = (p: { number_sealed: string | null; bank_account_id: string }): BankAccountNumber | null =>
        p.number_sealed === null ? null : parseCanonicalNumber(openBankAccountNumber(p.number_sealed, p.bank_account_id, key));
      const files = [true, false].map((sepa) => ({
        sepa,
        messageId: fileMessageId(input.messageId, sepa),
        entered: [] as string[],
        returns: [] as string[],
      }));
      for (const p of await unbatchedLivePayouts(db, PAYOUTS_PER_FILE)) {
        // An account deleted since the payout was created has no number left to pay to; a holder name
        // from before names were checked at input, outside the SEPA set, would make the bank refuse
        // the whole file, every account's payouts in it (docs/bank.md): that payout fails alone.
        let account: BankAccountNumber | null;
        try {
          account = payableName(p.account_holder_name) ? numberOf(p) : null;
        } catch (err) {
          // A number this worker cannot open (sealed under another WEBHOOK_SECRET_KEY): left pending for
          // one that can, and said loudly; one such row must not hold back every other payout.
          logger.error({ payout_id: p.id, err }, 'bank account number cannot be opened: payout left pending');
          continue;
        }
        if (account === null) {
          if (p.status === 'pending') await tell(p.id, 'bankOutcome', { action: 'fail', failureCode: 'could_not_process' });
        } else {
          const file = files.find((f) => f.sepa === isSepaTransfer({ currency: p.currency, creditor: { name: '', account } }))!;
          // In the file from now on: its cancel is refused; a cancel that came first kept it out.
          if (await tell(p.id, 'enterFile', { messageId: file.messageId })) file.entered.push(p.id);
        }
        // Alive: a worker that dies mid-batch is noticed within the heartbeat time-out, not the batch's whole time.
        Context.current().heartbeat();
      }
      // A refund of a payment funded by transfer is paid back to its payer's account, as a return is.
      await makeRefundReturns(db);
      // Returns waiting for a file go in the same files (docs/bank.md, "Returns"), recorded under the
      // file before it is built, as payouts are: a retry writes them in the same file.
      for (const r of await unfiledReturns(db, PAYOUTS_PER_FILE)) {
        // A debtor erased since the request (the payment redacted) has no account left: recorded with the SEPA file's, and failed there.
        const sepa =
          !payableDebtor(r) ||
          isSepaTransfer({ currency: r.currency, creditor: { name: '', account: { scheme: 'iban', iban: r.debtor_iban! } } });
        files.find((f) => f.sepa === sepa)!.returns.push(r.id);
      }
      const outcome = { payouts: 0, written: false, files: [] as string[] };
      for (const file of files) {
        await assignBatch(db, file.messageId, file.entered);
        await assignReturns(db, file.messageId, file.returns);
        const allReturns = await fileReturns(db, file.messageId);
        // A debtor erased (the payment redacted) before the file: nothing to pay back to; the credit is unapplied again.
        for (const r of allReturns.filter((x) => !payableDebtor(x))) await failReturn(db, r, 'could_not_process');
        const returns = allReturns.filter(payableDebtor);
        const carried = await batchPayouts(db, file.messageId);
        // A bank account cannot be deleted while a payout to it waits for its file (409): none should lack its number here.
        for (const p of carried.filter((c) => c.number_sealed === null && c.status === 'pending')) {
          await tell(p.id, 'bankOutcome', { action: 'fail', failureCode: 'could_not_process' });
        }
        const payouts = carried.filter((p) => p.number_sealed !== null && payableName(p.account_holder_name));
        if (payouts.length === 0 && returns.length === 0) continue;
        const createdAt = new Date(input.createdAtMs);
        const pain001 = buildPain001({
          messageId: file.messageId,
          createdAt,
          executionDate: createdAt.toISOString().slice(0, 10),
          debtor,
          transfers: [
            ...payouts.map((p) => ({
              endToEndId: p.end_to_end_id,
              amount: p.amount,
              currency: p.currency,
              creditor: { name: p.account_holder_name, account: numberOf(p)! },
              // The payout's reference in the SEPA character set: its id's `_` is outside it (docs/bank.md).
              remittance: p.end_to_end_id,
            })),
            ...returns.map((r) => ({
              endToEndId: r.end_to_end_id,
              amount: r.amount_minor,
              currency: r.currency,
              // Back to the debtor account the credit's entry named (RltdPties/DbtrAcct), read from its row now.
              creditor: { name: r.debtor_name!, account: { scheme: 'iban' as const, iban: r.debtor_iban! } },
              remittance: r.end_to_end_id,
            })),
          ],
        });
        const { written, path } = await writeOutboxFile(config.PAYOUT_OUTBOX_DIR, `${file.messageId}.xml`, pain001.xml);
        logger.info(
          {
            message_id: file.messageId,
            batch: input.messageId,
            payouts: payouts.length,
            returns: returns.length,
            control_sum: pain001.controlSum,
            path,
            written,
          },
          'payout file written',
        );
        // Durably written (src/payouts/outboxFile.ts: written, flushed, linked, its directory flushed): only now is each payout sent.
        for (const p of payouts) {
          if (p.status === 'pending') await tell(p.id, 'bankOutcome', { action: 'send' });
          Context.current().heartbeat();
        }
        await markReturnsInFile(
          db,
          file.messageId,
          returns.map((r) => r.id),
        );
        outcome.payouts += payouts.length;
        outcome.written ||= written;
        outcome.files.push(file.messageId);
      }
      return outcome;
    },
  };
}
