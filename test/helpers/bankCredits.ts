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
