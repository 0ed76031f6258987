/** The credits fixture (test/fixtures/bank-files/camt.054.001.08-credits.xml) with its payments' references, account and message id put in. */
import fs from 'node:fs';
import path from 'node:path';

const template = fs.readFileSync(path.join(__dirname, '../fixtures/bank-files/camt.054.001.08-credits.xml'), 'utf8');

/** `entryPrefix` makes the bank's references (AcctSvcrRef) of one run its own: the test database outlives a run. */
export const creditsFile = (refs: { exact: string; short: string; over: string }, iban: string, messageId: string, entryPrefix = '') =>
  template
    .replaceAll('{{ENTRY_PREFIX}}', entryPrefix)
    .replaceAll('{{REF_EXACT}}', refs.exact)
    .replaceAll('{{REF_SHORT_SPACED}}', refs.short.toLowerCase().replace(/(.{4})/g, '$1 '))
    .replaceAll('{{REF_OVER}}', refs.over)
    .replaceAll('{{ACCOUNT_IBAN}}', iban)
    .replaceAll('{{MSG_ID}}', messageId);

const settles = fs.readFileSync(path.join(__dirname, '../fixtures/bank-files/live/camt.054.001.08-settles.xml'), 'utf8');
let settled = 0;

/**
 * One booked credit to the custody account (DE89370400440532013000) carrying `reference`: a payer's
 * transfer or a platform's settlement (test/fixtures/bank-files/live/camt.054.001.08-settles.xml),
 * its message id and AcctSvcrRef new each call. `amount` in major units as the bank writes it ("20.00").
 */
export const settlementFile = (reference: string, amount: string, currency: string) => {
  const run = `${Date.now()}-${process.pid}-${++settled}`;
  return Buffer.from(
    settles.replaceAll('__RUN__', run).replaceAll('__REF__', reference).replaceAll('__AMOUNT__', amount).replaceAll('__CCY__', currency),
  );
};

/** The custody account the bank's test files name (docs/bank.md): a stack's settings for it. */
export const CUSTODY_ENV = {
  CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
  CUSTODY_ACCOUNT_IBAN: 'DE89 3704 0044 0532 0130 00',
  CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
};
