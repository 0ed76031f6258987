/**
 * Live payouts as the bank's own format (docs/payouts.md, "Live mode"): one ISO 20022
 * `pain.001.001.09` customer credit transfer initiation per file, built with xmlbuilder2 (never
 * by joining strings, so every name and reference is escaped as XML requires). One `MsgId` per
 * file, `NbOfTxs` and `CtrlSum` counted from the transfers themselves, the custody account as
 * debtor, one `CdtTrfTxInf` per payout with its `EndToEndId`; one `PmtInf` per currency. SEPA
 * credit transfers and the others never share a file (banks take them as different orders, and a
 * `CtrlSum` over EUR and USD adds nothing up): the batch writes one file of each (docs/bank.md, "The outbox").
 */
import { isSEPACountry, isValidBIC, isValidIBAN } from 'ibantools';
import { create } from 'xmlbuilder2';
import type { BankAccountNumber } from './bankAccounts.rules';
import { SEPA_NAME_MAX, isSepaText } from './sepaText.rules';
import { isoAmountText, sumDecimalTexts } from './bankAmounts.format';

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

/** The custody account money leaves from (settings CUSTODY_ACCOUNT_NAME, CUSTODY_ACCOUNT_IBAN, CUSTODY_ACCOUNT_BIC). */
export interface Debtor {
  name: string;
  iban: string;
  bic: string;
  /** The identifier the bank gave the initiating party (CUSTODY_ACCOUNT_INITIATOR_ID), when it gave one. */
  initiatorId?: string;
}

/** One payout as a credit transfer. */
export interface CreditTransfer {
  endToEndId: string;
  /** Minor units. */
  amount: bigint;
  currency: string;
  creditor: { name: string; account: BankAccountNumber };
  /** Unstructured remittance text the creditor's statement shows (Max140Text). */
  remittance?: string;
}

export interface Pain001Input {
  /** The file's `MsgId` (Max35Text): unique per file, the bank refuses a second file with the same. */
  messageId: string;
  createdAt: Date;
  /** The requested execution date, `YYYY-MM-DD`. */
  executionDate: string;
  debtor: Debtor;
  transfers: readonly CreditTransfer[];
}

export interface Pain001File {
  xml: string;
  messageId: string;
  numberOfTransactions: number;
  /** The sum of every transfer's amount, as the file's `CtrlSum` states it. */
  controlSum: string;
}

/** ISO's Max35Text in the SEPA character set, no leading or trailing `/`, no `//` (EPC's rules for references). */
const REFERENCE = /^(?!\/)(?!.*\/\/)(?!.*\/$)[A-Za-z0-9/\-?:().,'+ ]{1,35}$/;

function check(condition: boolean, message: string): void {
  if (!condition) throw new RangeError(message);
}

/** `2026-11-27T09:30:00Z`: ISODateTime without milliseconds. */
const isoDateTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A SEPA credit transfer: euros to an IBAN of a SEPA country; anything else is another order of the bank's. */
export const isSepaTransfer = (t: Pick<CreditTransfer, 'currency' | 'creditor'>) =>
  t.currency === 'EUR' && t.creditor.account.scheme === 'iban' && isSEPACountry(t.creditor.account.iban.slice(0, 2));

/** The country of the creditor's account: its IBAN's, or the US for an ABA routing number. */
const countryOf = (account: BankAccountNumber) => (account.scheme === 'iban' ? account.iban.slice(0, 2) : 'US');

function creditorAccount(account: BankAccountNumber) {
  return account.scheme === 'iban' ? { Id: { IBAN: account.iban } } : { Id: { Othr: { Id: account.accountNumber } } };
}

/**
 * The creditor's bank. SEPA needs none (the IBAN names it). Any other transfer names it: a US bank by
 * its routing number in the ABA clearing system, any other by its country, which is all an account
 * without a BIC tells.
 */
function creditorAgent(t: CreditTransfer) {
  const { account } = t.creditor;
  if (isSepaTransfer(t)) return {};
  return account.scheme === 'us_aba'
    ? { CdtrAgt: { FinInstnId: { ClrSysMmbId: { ClrSysId: { Cd: 'USABA' }, MmbId: account.routingNumber }, PstlAdr: { Ctry: 'US' } } } }
    : { CdtrAgt: { FinInstnId: { PstlAdr: { Ctry: countryOf(account) } } } };
}

function transaction(t: CreditTransfer) {
  return {
    PmtId: { EndToEndId: t.endToEndId },
    Amt: { InstdAmt: { '@Ccy': t.currency, '#': isoAmountText(t.amount, t.currency) } },
    ...creditorAgent(t),
    // Outside SEPA the creditor's country travels with the name (the bank's screening asks for it).
    Cdtr: isSepaTransfer(t) ? { Nm: t.creditor.name } : { Nm: t.creditor.name, PstlAdr: { Ctry: countryOf(t.creditor.account) } },
    CdtrAcct: creditorAccount(t.creditor.account),
    ...(t.remittance ? { RmtInf: { Ustrd: t.remittance } } : {}),
  };
}

/** Build one pain.001.001.09 file; throws RangeError on input no bank would take (the caller's bug, not the bank's). */
export function buildPain001(input: Pain001Input): Pain001File {
  const { messageId, debtor, transfers } = input;
  check(transfers.length > 0, 'a credit transfer file holds at least one transfer');
  check(REFERENCE.test(messageId), `MsgId "${messageId}" is not a reference of at most 35 characters of the SEPA set`);
  check(/^\d{4}-\d{2}-\d{2}$/.test(input.executionDate), `execution date "${input.executionDate}" is not YYYY-MM-DD`);
  check(isValidIBAN(debtor.iban), 'CUSTODY_ACCOUNT_IBAN is not a valid IBAN');
  check(isValidBIC(debtor.bic), 'CUSTODY_ACCOUNT_BIC is not a valid BIC');
  check(debtor.name.length > 0 && debtor.name.length <= 140, 'CUSTODY_ACCOUNT_NAME must be 1 to 140 characters');
  check(
    transfers.every((t) => isSepaTransfer(t) === isSepaTransfer(transfers[0])),
    'SEPA credit transfers and other transfers go in separate files',
  );
  check(
    debtor.initiatorId === undefined || REFERENCE.test(debtor.initiatorId),
    'CUSTODY_ACCOUNT_INITIATOR_ID is not a reference of at most 35 characters of the SEPA set',
  );
  const ids = new Set<string>();
  for (const t of transfers) {
    check(REFERENCE.test(t.endToEndId), `EndToEndId "${t.endToEndId}" is not a reference of at most 35 characters of the SEPA set`);
    check(!ids.has(t.endToEndId), `EndToEndId ${t.endToEndId} appears twice`);
    ids.add(t.endToEndId);
    check(
      t.creditor.name.length > 0 && t.creditor.name.length <= SEPA_NAME_MAX && isSepaText(t.creditor.name),
      `the creditor's name of ${t.endToEndId} must be 1 to ${SEPA_NAME_MAX} characters of the SEPA set`,
    );
    check(
      t.remittance === undefined || (t.remittance.length <= 140 && isSepaText(t.remittance)),
      `the remittance text of ${t.endToEndId} must be at most 140 characters of the SEPA set`,
    );
  }

  // One payment instruction per currency: a bank books each as one batch.
  const sepa = isSepaTransfer(transfers[0]);
  const groups = new Map<string, CreditTransfer[]>();
  for (const t of transfers) groups.set(t.currency, [...(groups.get(t.currency) ?? []), t]);
  const amountsOf = (ts: readonly CreditTransfer[]) => ts.map((t) => isoAmountText(t.amount, t.currency));
  const controlSum = sumDecimalTexts(amountsOf(transfers));
  const paymentInstructions = [...groups.values()].map((group, index) => ({
    PmtInfId: `${messageId.slice(0, 31)}-${String(index + 1).padStart(3, '0')}`,
    PmtMtd: 'TRF',
    NbOfTxs: String(group.length),
    CtrlSum: sumDecimalTexts(amountsOf(group)),
    ...(sepa ? { PmtTpInf: { SvcLvl: { Cd: 'SEPA' } } } : {}),
    ReqdExctnDt: { Dt: input.executionDate },
    Dbtr: { Nm: debtor.name },
    DbtrAcct: { Id: { IBAN: debtor.iban } },
    DbtrAgt: { FinInstnId: { BICFI: debtor.bic } },
    // SEPA's rule is that each side pays its own bank; elsewhere the same, under ISO's name for it.
    ChrgBr: sepa ? 'SLEV' : 'SHAR',
    CdtTrfTxInf: group.map(transaction),
  }));

  const xml = create(
    { version: '1.0', encoding: 'UTF-8' },
    {
      Document: {
        '@xmlns': PAIN_001_NAMESPACE,
        CstmrCdtTrfInitn: {
          GrpHdr: {
            MsgId: messageId,
            CreDtTm: isoDateTime(input.createdAt),
            NbOfTxs: String(transfers.length),
            CtrlSum: controlSum,
            InitgPty: debtor.initiatorId ? { Nm: debtor.name, Id: { OrgId: { Othr: { Id: debtor.initiatorId } } } } : { Nm: debtor.name },
          },
          PmtInf: paymentInstructions,
        },
      },
    },
  ).end({ prettyPrint: true });
  return { xml, messageId, numberOfTransactions: transfers.length, controlSum };
}
