/**
 * The bank's files, the operator's (docs/bank.md, "The inbox"): each file that arrives in
 * BANK_INBOX_DIR is read within the limits of docs/bank.md (src/payouts/bankFileLimits.format.ts), claimed once
 * for the whole service by its message id (with its raw bytes and their SHA-256), matched to
 * whichever account's live payouts it names (src/payouts/bankFileMatch.format.ts), each matched entry's steps
 * sent to its payout's workflow, and its record written; then it is moved to `taken/`, or to
 * `rejected/` with a reason file beside it when it changed nothing. Runs in the worker (the inbox's
 * Temporal Schedule, the activity at the end of this file) and in `npm run bank-files`, never in the API.
 */
import { createHash } from 'node:crypto';
import { copyFile, constants, link, mkdir, readFile, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { type Client, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { Config } from '../platform/config';
import { BankFileError } from './bankFileErrors.format';
import type { BankFileLimits } from './bankFileLimits.format';
import { type PayoutSnapshot, planBankFile } from './bankFileMatch.format';
import { readBankFile } from './bankFileRead.format';
import { majorOf } from '../ledger/amountText.rules';
import { minorUnits } from '../ledger/money.rules';
import type { PayoutAction, PayoutFailureCode } from './payout.rules';
import { type BankFileRecord, type BankFileRow, claimBankFile, finishBankFile, operatorBankFiles } from './bankFiles.repository';
import { type PayoutRow, livePayoutsForBankFile } from './payouts.repository';
import type { Logger } from '../platform/lib/logger';
import type { ActivityResourcesWithClient } from '../platform/activityResources';
import { startStatementReconciliation } from '../reconciliation/reconciliationStart.activities';
import type { BankFile } from './bankFileRead.format';
import { type Announce, type Booked, type Fund, bookCredit } from './bankCreditBooking.repository';
import type { NewBankCredit } from './bankCredits.repository';
import { startRecordedDeliveries } from '../webhooks/firstSeries.activities';
import { type BankReturnRow, failReturn, payReturn, returnsForBankFile } from './bankReturns.repository';

/** A payout's run closed (a return after PAYOUT_RETURN_WINDOW): nothing to tell it any more. */
const isClosedRun = (err: unknown) =>
  err instanceof WorkflowNotFoundError || (err instanceof ServiceError && /already completed/i.test(err.message));

export type TakeResult =
  | { outcome: 'taken'; id: string; record: BankFileRecord }
  /** Taken before, byte for byte: nothing changed now. */
  | { outcome: 'already_taken'; id: string }
  | { outcome: 'rejected'; reason: string }
  /** Another taker is at this message id now: left for the next round. */
  | { outcome: 'busy'; id: string };

const snapshot = (p: PayoutRow): PayoutSnapshot => ({
  id: p.id,
  endToEndId: p.end_to_end_id,
  status: p.status,
  amount: p.amount,
  currency: p.currency,
  messageId: p.message_id,
});

/** Move `from` to `dir/name` without replacing a file already there (`name-2`, `name-3`… then). */
async function fileAway(from: string, dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (let n = 1; ; n += 1) {
    const target = path.join(dir, n === 1 ? name : `${name}-${n}`);
    try {
      await link(from, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EXDEV' && code !== 'EPERM') throw err;
      try {
        await copyFile(from, target, constants.COPYFILE_EXCL);
      } catch (copyErr) {
        if ((copyErr as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw copyErr;
      }
    }
    await unlink(from);
    return target;
  }
}

export function bankInbox({ db, temporal, config, logger }: { db: Knex; temporal: Client; config: Config; logger: Logger }) {
  const limits: BankFileLimits = {
    maxBytes: config.BANK_FILE_MAX_BYTES,
    maxElements: config.BANK_FILE_MAX_ELEMENTS,
    maxEntries: config.BANK_FILE_MAX_ENTRIES,
  };

  /** One step of a payout as the bank reported it; false when its workflow refuses it or its run has closed. */
  async function tell(payoutId: string, action: PayoutAction, failureCode: PayoutFailureCode | null): Promise<boolean> {
    if (action === 'cancel') return false;
    const outcome = action === 'fail' || action === 'return' ? { action, failureCode: failureCode ?? 'could_not_process' } : { action };
    try {
      // The payout workflow's `bankOutcome` update (src/payouts/payout.workflow.ts), by name: activities import no workflow code.
      await temporal.workflow.getHandle(payoutId).executeUpdate('bankOutcome', { args: [outcome] });
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError) && !isClosedRun(err)) throw err;
      return false;
    }
    return true;
  }

  /** The payment's `receiveFunds` update (src/payments/payment.workflow.ts), by name; refused or closed: the credit is unapplied. */
  const fund: Fund = async (paymentId, msg) => {
    try {
      return await temporal.workflow.getHandle(paymentId).executeUpdate('receiveFunds', { args: [msg], updateId: msg.creditId });
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError) && !(err instanceof WorkflowNotFoundError) && !isClosedRun(err)) throw err;
      return 'refused';
    }
  };

  /**
   * A credit's event's deliveries (a credit of an account), started on the one road (docs/webhooks.md,
   * "One road"), as a payout's activities start theirs: one whose workflow ran is left as it is.
   */
  const announce: Announce = ({ scope, deliveries }) => startRecordedDeliveries(temporal, config, scope, deliveries);

  /**
   * The file's booked credits to the custody account, each booked once by its entry key (the bank's
   * AcctSvcrRef, else the message id and its position) and matched by its reference (docs/bank.md,
   * "Funding by bank transfer"). A credit to another account is not the service's: left alone.
   */
  async function bookCredits(file: BankFile, bankFileId: string): Promise<{ booked: number; notOurs: number }> {
    const custody = config.CUSTODY_ACCOUNT_IBAN;
    const counts = { booked: 0, notOurs: 0 };
    for (const c of file.credits ?? []) {
      if (custody === undefined || c.accountIban !== custody) {
        counts.notOurs += 1;
        continue;
      }
      await bookCredit(
        { db, fund, announce },
        {
          entryKey: c.entryRef ?? `${file.messageId}#${c.position}`,
          livemode: true,
          amountMinor: c.amount,
          currency: c.currency,
          exponent: minorUnits(c.currency),
          reference: c.reference ?? c.remittance,
          bookedOn: c.bookedOn ?? file.createdAt.slice(0, 10),
          bankEntryRef: c.entryRef,
          bankFileId,
          debtor: { name: c.debtorName, iban: c.debtorIban },
        },
      );
      counts.booked += 1;
    }
    return counts;
  }

  /**
   * What the file says of returns, as of payouts (docs/bank.md, "What a file may change"): a pain.002
   * answers only the returns of the pain.001 its OrgnlMsgId names (a rejection: failed, the credit
   * unapplied again); a booked debit pays only a return that went out in a file, for its amount.
   */
  async function answerReturns(
    file: BankFile,
    returns: readonly BankReturnRow[],
    record: BankFileRecord,
    major: (minor: bigint | null, currency: string | null) => number | null,
  ): Promise<void> {
    const pain002 = file.messageType === 'pain.002.001.10';
    const entries =
      file.groupStatus === 'RJCT' && file.entries.length === 0
        ? returns
            .filter((r) => r.message_id === file.originalMessageId)
            .map((r) => ({ endToEndId: r.end_to_end_id, amount: null, currency: null, outcome: 'failed' as const }))
        : file.entries;
    const byId = new Map(returns.map((r) => [r.end_to_end_id, r]));
    record.returns = [];
    for (const e of entries) {
      const r = e.endToEndId === null ? undefined : byId.get(e.endToEndId);
      if (!r) continue;
      const refuse = (reason: string) =>
        record.unmatched.push({
          end_to_end_id: r.end_to_end_id,
          amount: major(e.amount, e.currency),
          currency: e.currency,
          reason,
          payout: null,
          account: r.account_id,
        });
      const inFile = pain002 ? r.message_id === file.originalMessageId : r.message_id !== null;
      if (!inFile) {
        if (pain002 || e.outcome !== 'no_change') refuse('not_in_file');
        continue;
      }
      if ((e.amount !== null && e.amount !== r.amount_minor) || (e.currency !== null && e.currency !== r.currency)) {
        refuse('amount_mismatch');
        continue;
      }
      let changed = true;
      if (e.outcome === 'failed') changed = await failReturn(db, r, 'could_not_process');
      else if (e.outcome === 'paid')
        changed = await payReturn(db, r, { bookedOn: file.createdAt.slice(0, 10), reference: r.end_to_end_id, entryRef: null });
      // The payer's bank sending a paid return back again is not taken yet: the operator's to look at.
      else if (e.outcome === 'returned') changed = false;
      if (
        !changed &&
        e.outcome !== 'no_change' &&
        !(e.outcome === 'paid' && r.status === 'paid') &&
        !(e.outcome === 'failed' && r.status === 'failed')
      ) {
        refuse('status_conflict');
        continue;
      }
      record.returns.push({
        end_to_end_id: r.end_to_end_id,
        amount: major(e.amount, e.currency),
        currency: e.currency,
        outcome: e.outcome,
        return: r.id,
        account: r.account_id,
      });
    }
  }

  /** One credit booked through the same matching as a file's (test mode's simulated transfer). */
  function book(c: NewBankCredit, accountId?: string): Promise<Booked> {
    return bookCredit({ db, fund, announce }, c, accountId);
  }

  /** Take one file's bytes (`source`: where they came from, for the record). Nothing changes unless it is `taken`. */
  async function take(raw: Buffer, source: string): Promise<TakeResult> {
    let file;
    try {
      file = readBankFile(raw, limits);
    } catch (err) {
      if (err instanceof BankFileError) return { outcome: 'rejected', reason: `${err.reason}: ${err.message}` };
      throw err;
    }
    const sha256 = createHash('sha256').update(raw).digest('hex');
    const claim = await claimBankFile(
      db,
      { id: `bf_${ulid()}`, message_id: file.messageId, message_type: file.messageType, raw, sha256, received_at: new Date(), source },
      config.BANK_INBOX_TAKE_LEASE,
    );
    if (claim.kind === 'other_content') {
      return {
        outcome: 'rejected',
        reason:
          `message_id_reused: message id ${file.messageId} was taken as ${claim.row.id} (from ${claim.row.source}) with other ` +
          `content (sha256 ${claim.row.sha256}, this file's ${sha256}); a message id names one file, so this one changes nothing`,
      };
    }
    if (claim.kind === 'taken') return { outcome: 'already_taken', id: claim.row.id };
    if (claim.kind === 'busy') return { outcome: 'busy', id: claim.row.id };

    const endToEndIds = [...new Set(file.entries.flatMap((e) => (e.endToEndId === null ? [] : [e.endToEndId])))];
    const rejectedFile = file.groupStatus === 'RJCT' ? file.originalMessageId : null;
    const major = (minor: bigint | null, currency: string | null) =>
      minor === null || currency === null ? null : majorOf(minor, minorUnits(currency));
    const record: BankFileRecord = { entries: [], unmatched: [] };
    // Returns first: their entries are theirs, the rest are payouts' (docs/bank.md, "Returns").
    const returns = await returnsForBankFile(db, endToEndIds, rejectedFile);
    const returnIds = new Set(returns.map((r) => r.end_to_end_id));
    await answerReturns(file, returns, record, major);
    const payoutFile = { ...file, entries: file.entries.filter((e) => e.endToEndId === null || !returnIds.has(e.endToEndId)) };
    const { byEndToEndId, ofFile } = await livePayoutsForBankFile(db, endToEndIds, rejectedFile);
    const rows = new Map([...byEndToEndId, ...ofFile].map((p) => [p.end_to_end_id, p]));
    // A whole file rejected without its transactions listed rejects its payouts too; one that listed only returns, none.
    const rejectsWhole = file.groupStatus === 'RJCT' && file.entries.length === 0;
    const plan =
      payoutFile.entries.length === 0 && !rejectsWhole
        ? { entries: [], unmatched: [] }
        : planBankFile(payoutFile, new Map(byEndToEndId.map((p) => [p.end_to_end_id, snapshot(p)])), ofFile.map(snapshot));
    const unmatched = [...plan.unmatched];
    for (const entry of plan.entries) {
      let taken = true;
      for (const action of entry.steps) if (taken) taken = await tell(entry.payoutId, action, entry.failureCode);
      // What its payout's workflow would not take is an operator's, as any entry that cannot follow the payout's status.
      if (!taken) {
        unmatched.push({ endToEndId: entry.endToEndId, amount: entry.amount, currency: entry.currency, reason: 'status_conflict' });
        continue;
      }
      record.entries.push({
        end_to_end_id: entry.endToEndId,
        amount: major(entry.amount, entry.currency),
        currency: entry.currency,
        outcome: entry.outcome,
        payout: entry.payoutId,
        account: rows.get(entry.endToEndId)!.account_id,
      });
    }
    for (const u of unmatched) {
      // The payout an entry named, when the reason is about it (not in the file, another amount, a status it cannot follow).
      const named = u.reason === 'unknown_end_to_end_id' || u.endToEndId === null ? undefined : rows.get(u.endToEndId);
      record.unmatched.push({
        end_to_end_id: u.endToEndId,
        amount: major(u.amount, u.currency),
        currency: u.currency,
        reason: u.reason,
        payout: named?.id ?? null,
        account: named?.account_id ?? null,
      });
    }
    const credits = await bookCredits(file, claim.id);
    // A statement is reconciled by its own workflow, started once its credits are booked and before the file is finished: a retry starts the same one (docs/reconciliation.md).
    if (file.messageType === 'camt.053.001.08')
      await startStatementReconciliation(temporal, { messageId: file.messageId, taskQueue: config.TEMPORAL_TASK_QUEUE });
    await finishBankFile(db, claim.id, record);
    logger.info(
      {
        bank_file_id: claim.id,
        message_id: file.messageId,
        source,
        entries: record.entries.length,
        unmatched: record.unmatched.length,
        credits_booked: credits.booked,
        credits_not_ours: credits.notOurs,
      },
      'bank file taken',
    );
    return { outcome: 'taken', id: claim.id, record };
  }

  /** Take the file at `file` and move it into BANK_INBOX_DIR's `taken/` or `rejected/` (a reason file beside it); busy: left where it is. */
  async function takePath(file: string, source: string): Promise<TakeResult & { movedTo?: string }> {
    const inbox = config.BANK_INBOX_DIR;
    const name = path.basename(file);
    const size = (await stat(file)).size;
    // A file too large is refused unread: its size is all that is looked at.
    const result: TakeResult =
      size > limits.maxBytes
        ? { outcome: 'rejected', reason: `too_large: the file has ${size} bytes, more than ${limits.maxBytes} (BANK_FILE_MAX_BYTES)` }
        : await take(await readFile(file), source);
    if (result.outcome === 'busy') return result;
    if (result.outcome === 'rejected') {
      const movedTo = await fileAway(file, path.join(inbox, 'rejected'), name);
      // Written beside it, then renamed into place: whoever watches rejected/ never reads half a reason.
      await writeFile(`${movedTo}.reason.txt.part`, `${result.reason}\n`);
      await rename(`${movedTo}.reason.txt.part`, `${movedTo}.reason.txt`);
      logger.warn({ file: name, reason: result.reason }, 'bank file rejected');
      return { ...result, movedTo };
    }
    return { ...result, movedTo: await fileAway(file, path.join(inbox, 'taken'), name) };
  }

  return {
    take,
    takePath,
    book,

    /** Every new file in the inbox, in name order, each taken once; `alive` is called between files (an activity's heartbeat). */
    async takeInbox(alive: () => void = () => undefined): Promise<{ taken: number; rejected: number; waiting: number }> {
      const inbox = config.BANK_INBOX_DIR;
      await mkdir(inbox, { recursive: true });
      const counts = { taken: 0, rejected: 0, waiting: 0 };
      // Dot names are a dropping client's files still being written.
      const names = (await readdir(inbox, { withFileTypes: true }))
        .filter((d) => d.isFile() && !d.name.startsWith('.'))
        .map((d) => d.name)
        .sort();
      for (const name of names) {
        const result = await takePath(path.join(inbox, name), `inbox:${name}`);
        if (result.outcome === 'busy') counts.waiting += 1;
        else if (result.outcome === 'rejected') counts.rejected += 1;
        else counts.taken += 1;
        alive();
      }
      return counts;
    },

    /** Every file taken, for the operator: its hash, when and whence it came, and what each entry did to whose payout. */
    async list(): Promise<OperatorBankFile[]> {
      return (await operatorBankFiles(db)).map(operatorView);
    },
  };
}

export interface OperatorBankFile extends BankFileRecord {
  id: string;
  message_id: string;
  message_type: string;
  sha256: string;
  received_at: string;
  source: string;
}

const operatorView = (row: BankFileRow): OperatorBankFile => ({
  id: row.id,
  message_id: row.message_id,
  message_type: row.message_type,
  sha256: row.sha256!,
  received_at: row.received_at!.toISOString(),
  source: row.source!,
  ...(row.answer as BankFileRecord),
});

export type BankInbox = ReturnType<typeof bankInbox>;

/** A simulated transfer to book (test mode): the caller's account alone may be funded by it. */
export interface SimulatedTransferInput {
  entryKey: string;
  accountId: string;
  amountMinor: bigint;
  currency: string;
  reference: string;
  bookedOn: string;
}

/** The credits it became (their ids: the API reads them), and whether the entry was taken before. */
export interface SimulatedTransferResult {
  creditIds: string[];
  again: boolean;
}

/** The inbox's activity: every new file taken, a heartbeat between files. */
export function bankInboxActivities({ db, config, temporal, logger }: ActivityResourcesWithClient) {
  const inbox = bankInbox({ db, config, temporal, logger });
  return {
    /** Test mode's simulated transfer, matched as the bank's credits are (src/payouts/simulatedTransfer.workflow.ts). */
    async bookSimulatedTransfer(input: SimulatedTransferInput): Promise<SimulatedTransferResult> {
      const booked = await inbox.book(
        {
          entryKey: input.entryKey,
          livemode: false,
          amountMinor: input.amountMinor,
          currency: input.currency,
          exponent: minorUnits(input.currency),
          reference: input.reference,
          bookedOn: input.bookedOn,
          bankEntryRef: null,
          bankFileId: null,
          debtor: null,
        },
        input.accountId,
      );
      return { creditIds: booked.credits.map((c) => c.id), again: booked.again };
    },
    async takeBankInbox(): Promise<{ taken: number; rejected: number; waiting: number }> {
      return inbox.takeInbox(() => {
        Context.current().heartbeat();
      });
    },
  };
}
