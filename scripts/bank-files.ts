/**
 * `npm run bank-files -- take FILE | list [--json] | credits [--json] | return ID | apply ID PAYMENT`: the bank inbox by hand (docs/bank.md).
 * `take` does for one file what the inbox's schedule does for each: reads it within the limits,
 * takes it once for the whole service, and moves it into BANK_INBOX_DIR's `taken/` or `rejected/`
 * (a reason file beside it). `list` prints every file taken, with its hash, whence it came and what
 * each entry did to whose payout; `credits` the operator's credits, those naming no payment
 * (docs/bank.md, "Unapplied credits"); `return` sends one of those back to its debtor in the next
 * pain.001 (docs/bank.md, "Returns"), `apply` onto a payment funded by transfer; exit 1 when it cannot be. Exit 0 taken (or taken before, byte for byte), 1 rejected or
 * being taken by another right now, 2 a usage or start-up error.
 */
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/lib/logger';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { buildStack } from '../src/platform/stack';
import { bankCreditView } from '../src/payouts/bankCredit.view';
import { parseCommand, runCommand } from './lib/cli';
import { BankCreditNotReturnable, BankCreditNotUnapplied, InvalidInput, InvalidTransition, NotFound } from '../src/platform/useCaseErrors';

const USAGE = 'usage: npm run bank-files -- take FILE | list [--json] | credits [--json] | return ID | apply ID PAYMENT';

async function main(): Promise<number> {
  const parsed = parseCommand(
    USAGE,
    (command, args) =>
      ((command === 'take' || command === 'return') && args.length === 1) ||
      (command === 'apply' && args.length === 2) ||
      ((command === 'list' || command === 'credits') && args.length === 0),
  );
  if (!parsed) return 2;
  const { command, json } = parsed;
  const [file, ...rest] = parsed.args;
  const config = loadConfig();
  const logger = createLogger('silent');
  const stack = await buildStack({ config, logger });
  try {
    const inbox = bankInbox({ db: stack.db, temporal: stack.client, config, logger });
    if (command === 'credits') {
      const credits = (await stack.services.bankCredits.listOperator()).map(bankCreditView);
      if (json) process.stdout.write(`${JSON.stringify(credits, null, 2)}\n`);
      else
        for (const c of credits)
          process.stdout.write(
            `${c.id} ${c.status} ${c.amount} ${c.currency} booked ${c.booked_at} reference ${c.reference ?? '-'} from …${c.debtor_last4 ?? '-'}\n`,
          );
      return 0;
    }
    if (command === 'apply' || command === 'return') {
      try {
        if (command === 'apply') {
          const credit = bankCreditView(await stack.services.bankCredits.applyOperatorCredit(file, rest[0]));
          process.stdout.write(`${credit.id} ${credit.status}: ${credit.amount} ${credit.currency} to ${credit.payment}\n`);
          return 0;
        }
        const credit = await stack.services.bankCredits.returnOperatorCredit(file);
        process.stdout.write(
          `${credit.id} ${credit.status}: ${credit.amount} ${credit.currency} back to …${credit.debtor_last4 ?? '-'} in the next pain.001\n`,
        );
        return 0;
      } catch (err) {
        if (!(
          err instanceof NotFound ||
          err instanceof BankCreditNotUnapplied ||
          err instanceof BankCreditNotReturnable ||
          err instanceof InvalidInput ||
          err instanceof InvalidTransition
        ))
          throw err;
        process.stderr.write(`not ${command === 'apply' ? 'applied' : 'returned'}: ${err.message}\n`);
        return 1;
      }
    }
    if (command === 'list') {
      const files = await inbox.list();
      if (json) process.stdout.write(`${JSON.stringify(files, null, 2)}\n`);
      else
        for (const f of files)
          process.stdout.write(
            `${f.id} ${f.message_type} ${f.message_id} ${f.received_at} ${f.source}: ${f.entries.length} entries, ${f.unmatched.length} unmatched\n`,
          );
      return 0;
    }
    const result = await inbox.takePath(file, `cli:${file}`);
    const where = result.movedTo ? ` → ${result.movedTo}` : '';
    switch (result.outcome) {
      case 'taken':
        process.stdout.write(
          `taken as ${result.id}: ${result.record.entries.length} entries, ${result.record.unmatched.length} unmatched${where}\n`,
        );
        return 0;
      case 'already_taken':
        process.stdout.write(`already taken as ${result.id}, byte for byte: nothing changed${where}\n`);
        return 0;
      case 'busy':
        process.stderr.write(`${result.id} is being taken by another taker right now; try again in a few minutes\n`);
        return 1;
      case 'rejected':
        process.stderr.write(`rejected: ${result.reason}${where}\n`);
        return 1;
    }
  } finally {
    await stack.stop();
  }
}

runCommand(main, 'bank-files could not run');
