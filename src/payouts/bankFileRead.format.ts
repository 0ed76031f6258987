/**
 * The bank's answers (docs/payouts.md, "Live mode"), checked by fast-xml-validator and read with
 * fast-xml-parser: `pain.002.001.10` payment status reports (a rejected transaction fails its
 * payout) and `camt.054.001.08` notifications or `camt.053.001.08` statements (a booked debit pays
 * a payout; a booked credit with return information returns one). Each becomes a list of entries by
 * `EndToEndId` with the outcome it says; matching them to payouts is src/payouts/bankFileMatch.format.ts's.
 * Anything that is not well-formed XML of one of these messages is a BankFileError. Amounts stay
 * text until converted exactly to minor units.
 */
import { XMLParser } from 'fast-xml-parser';
import { SyntaxValidator } from 'fast-xml-validator';
import { type PayoutFailureCode, failureCodeOfIsoReason } from './payout.rules';
import { minorOfIsoAmount } from './bankAmounts.format';
import { BankFileError } from './bankFileErrors.format';
import { type BankFileLimits, checkXmlLimits } from './bankFileLimits.format';
import { findFundingReference, normalReference } from '../payments/fundingReference.rules';

const ISO_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:';

/** The messages the service reads, by namespace, with the element under `Document` each one has. */
export const BANK_FILE_MESSAGES = {
  'pain.002.001.10': 'CstmrPmtStsRpt',
  'camt.054.001.08': 'BkToCstmrDbtCdtNtfctn',
  'camt.053.001.08': 'BkToCstmrStmt',
} as const;
export type BankFileMessageType = keyof typeof BANK_FILE_MESSAGES;

/**
 * What one transaction in the file says: `paid`, `failed` (with the ISO reason and the failure code
 * it maps to), `returned` (likewise), or `no_change` (accepted, pending, or money that is no payout's).
 */
export const BANK_FILE_OUTCOMES = ['paid', 'failed', 'returned', 'no_change'] as const;
export type BankFileOutcome = (typeof BANK_FILE_OUTCOMES)[number];

export interface BankFileEntry {
  /** Null when the bank gave none (or `NOTPROVIDED`): such an entry matches no payout. */
  endToEndId: string | null;
  /** Minor units; null when the message states no amount for it (a pain.002 need not). */
  amount: bigint | null;
  currency: string | null;
  outcome: BankFileOutcome;
  reasonCode: string | null;
  failureCode: PayoutFailureCode | null;
}

/**
 * camt: a booked credit to an account (`CdtDbtInd` CRDT, `Sts` BOOK, no `RvslInd` true, no return
 * information), what funding by bank transfer matches by its reference (docs/bank.md). Its debtor's
 * name and IBAN are personal data: the caller keeps them in PostgreSQL only.
 */
export interface BankFileCredit {
  /** Its place among the file's credits: with the message id, its key when the bank gives no AcctSvcrRef. */
  position: number;
  /** The report's account (`Acct/Id/IBAN`): the custody account's, or the entry is not the service's. */
  accountIban: string | null;
  amount: bigint;
  currency: string;
  /** An ISO 11649 reference with valid check digits: `RmtInf/Strd/CdtrRefInf/Ref`, else one found in `RmtInf/Ustrd`. */
  reference: string | null;
  /** What the remittance information said, as given (a malformed reference, free text), for the operator. */
  remittance: string | null;
  /** `BookgDt` (YYYY-MM-DD). */
  bookedOn: string | null;
  /** The bank's own reference for the entry (`AcctSvcrRef`), the transaction's or the entry's. */
  entryRef: string | null;
  debtorName: string | null;
  debtorIban: string | null;
}

export interface BankFile {
  messageType: BankFileMessageType;
  messageId: string;
  createdAt: string;
  /** pain.002: the `MsgId` of the pain.001 it answers, and that file's status as a whole (`RJCT`: every transaction in it). */
  originalMessageId: string | null;
  groupStatus: string | null;
  /** pain.002: the reason given for the file as a whole, if any. */
  groupReasonCode: string | null;
  entries: BankFileEntry[];
  /** camt: its booked credits (absent for a pain.002). */
  credits?: BankFileCredit[];
}

type XmlNode = Record<string, unknown>;

/** Elements that may repeat in these messages: always arrays, so one occurrence reads as many do. */
const REPEATED = new Set([
  'Ntfctn',
  'Stmt',
  'Ntry',
  'NtryDtls',
  'TxDtls',
  'OrgnlPmtInfAndSts',
  'TxInfAndSts',
  'StsRsnInf',
  'Bal',
  'AddtlInf',
  'Strd',
  'Ustrd',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Values stay text: an amount is converted exactly, never through a number.
  parseTagValue: false,
  parseAttributeValue: false,
  // Elements are read by local name; the namespace is checked on Document.
  transformTagName: (name) => name.slice(name.indexOf(':') + 1),
  isArray: (name, _path, _leaf, isAttribute) => !isAttribute && REPEATED.has(name),
  processEntities: true,
});

const asNode = (value: unknown): XmlNode | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as XmlNode) : undefined;

const list = (node: XmlNode | undefined, name: string): XmlNode[] => {
  const value = node?.[name];
  return Array.isArray(value) ? value.map((v) => asNode(v) ?? { '#text': v }) : [];
};

/** An element's text, whether it has attributes (`{'#text': …}`) or not (a string). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  const node = asNode(value);
  const text = node?.['#text'];
  return typeof text === 'string' ? text.trim() : node ? '' : undefined;
}

/** The text at a path of child names, or undefined when an element on the way is absent. */
function at(node: XmlNode | undefined, ...names: string[]): string | undefined {
  let value: unknown = node;
  for (const name of names) value = asNode(value)?.[name];
  return textOf(value);
}

function required(node: XmlNode | undefined, path: string, ...names: string[]): string {
  const text = at(node, ...names);
  if (!text) throw new BankFileError('invalid_message', `${names.join('/')} is required`, path);
  return text;
}

function child(node: XmlNode | undefined, name: string, path: string): XmlNode {
  const value = asNode(node?.[name]);
  if (!value) throw new BankFileError('invalid_message', `${name} is required`, path);
  return value;
}

/** An amount element (`<Amt Ccy="EUR">10.50</Amt>`) in minor units, with its currency. */
function amountOf(value: unknown, path: string): { amount: bigint; currency: string } {
  const node = asNode(value);
  const currency = node?.['@_Ccy'];
  const text = textOf(value);
  if (typeof currency !== 'string' || !text) throw new BankFileError('invalid_message', 'an amount with its Ccy is required', path);
  return { amount: minorOfIsoAmount(text, currency, path), currency };
}

const endToEndIdOf = (text: string | undefined) => (text && text !== 'NOTPROVIDED' ? text : null);

/**
 * A pain.002 transaction is rejected by its own status `RJCT`, or, stating none, by its payment
 * instruction's or the whole file's; every other status (ACCP, ACSC, PDNG…) changes nothing. Its
 * reason is the nearest one given.
 */
function pain002Entries(report: XmlNode, root: string): BankFileEntry[] {
  const group = asNode(report.OrgnlGrpInfAndSts);
  const reasonOf = (node: XmlNode | undefined) => at(list(node, 'StsRsnInf')[0], 'Rsn', 'Cd');
  return list(report, 'OrgnlPmtInfAndSts').flatMap((info, i) =>
    list(info, 'TxInfAndSts').map((tx, j): BankFileEntry => {
      const path = `${root}/OrgnlPmtInfAndSts[${i}]/TxInfAndSts[${j}]`;
      const amountElement = asNode(asNode(tx.OrgnlTxRef)?.Amt)?.InstdAmt;
      const money = amountElement === undefined ? null : amountOf(amountElement, `${path}/OrgnlTxRef/Amt/InstdAmt`);
      const status = at(tx, 'TxSts') ?? at(info, 'PmtInfSts') ?? at(group, 'GrpSts');
      const rejected = status === 'RJCT';
      const reasonCode = reasonOf(tx) ?? reasonOf(info) ?? reasonOf(group) ?? null;
      return {
        endToEndId: endToEndIdOf(at(tx, 'OrgnlEndToEndId')),
        amount: money?.amount ?? null,
        currency: money?.currency ?? null,
        outcome: rejected ? 'failed' : 'no_change',
        reasonCode: rejected ? reasonCode : null,
        failureCode: rejected ? failureCodeOfIsoReason(reasonCode) : null,
      };
    }),
  );
}

/** An entry's status: `<Sts><Cd>BOOK</Cd></Sts>` in the .08 messages. */
const entryStatus = (entry: XmlNode) => at(entry, 'Sts', 'Cd') ?? at(entry, 'Sts');

/** The transactions of camt entries: a batch booking's each, or the entry itself when it has no details. */
function camtEntries(entries: XmlNode[], root: string): BankFileEntry[] {
  return entries.flatMap((entry, i) => {
    const path = `${root}/Ntry[${i}]`;
    const entryAmount = amountOf(entry.Amt, `${path}/Amt`);
    const direction = required(entry, path, 'CdtDbtInd');
    if (direction !== 'CRDT' && direction !== 'DBIT') throw new BankFileError('invalid_message', 'CdtDbtInd is CRDT or DBIT', path);
    const status = entryStatus(entry);
    if (!status) throw new BankFileError('invalid_message', 'Sts/Cd is required', path);
    const booked = status === 'BOOK';
    const details = list(entry, 'NtryDtls').flatMap((d, k) =>
      list(d, 'TxDtls').map((tx, m) => ({ tx, path: `${path}/NtryDtls[${k}]/TxDtls[${m}]` })),
    );
    const transactions = details.length > 0 ? details : [{ tx: undefined, path }];
    return transactions.map(({ tx, path: txPath }): BankFileEntry => {
      const own = tx?.Amt ?? asNode(asNode(tx?.AmtDtls)?.TxAmt)?.Amt;
      // A batch's entry amount is the batch's; a transaction states its own, or is the entry's only one.
      const money = own !== undefined ? amountOf(own, `${txPath}/Amt`) : transactions.length === 1 ? entryAmount : null;
      const endToEndId = endToEndIdOf(at(tx, 'Refs', 'EndToEndId'));
      const returnInfo = asNode(tx?.RtrInf);
      const reasonCode = returnInfo ? (at(returnInfo, 'Rsn', 'Cd') ?? at(returnInfo, 'Rsn', 'Prtry') ?? null) : null;
      const outcome: BankFileOutcome =
        !booked || endToEndId === null ? 'no_change' : direction === 'DBIT' ? 'paid' : returnInfo ? 'returned' : 'no_change';
      return {
        endToEndId,
        amount: money?.amount ?? null,
        currency: money?.currency ?? null,
        outcome,
        reasonCode: outcome === 'returned' ? reasonCode : null,
        failureCode: outcome === 'returned' ? failureCodeOfIsoReason(reasonCode) : null,
      };
    });
  });
}

/** A booking date: `<BookgDt><Dt>` or the date of `<DtTm>`. */
const bookingDate = (entry: XmlNode) => at(entry, 'BookgDt', 'Dt') ?? at(entry, 'BookgDt', 'DtTm')?.slice(0, 10) ?? null;

/** The reference a credit carries: structured first (check digits verified), else found in the unstructured text. */
function referenceOf(tx: XmlNode | undefined): { reference: string | null; remittance: string | null } {
  const info = asNode(tx?.RmtInf);
  const structured = list(info, 'Strd')
    .map((strd) => at(strd, 'CdtrRefInf', 'Ref'))
    .filter((r): r is string => !!r);
  const free = list(info, 'Ustrd')
    .map((u) => textOf(u) ?? '')
    .join(' ')
    .trim();
  for (const r of structured) {
    const valid = normalReference(r);
    if (valid) return { reference: valid, remittance: r };
  }
  const found = free ? findFundingReference(free) : undefined;
  return { reference: found ?? null, remittance: structured[0] ?? (free || null) };
}

/** The booked credits of one report's entries (docs/bank.md, "Funding by bank transfer"); reversals and returns are not. */
function camtCredits(report: XmlNode, root: string, first: number): BankFileCredit[] {
  const accountIban = at(report, 'Acct', 'Id', 'IBAN')?.replace(/\s+/g, '').toUpperCase() ?? null;
  const credits: BankFileCredit[] = [];
  list(report, 'Ntry').forEach((entry, i) => {
    const path = `${root}/Ntry[${i}]`;
    if (at(entry, 'CdtDbtInd') !== 'CRDT' || entryStatus(entry) !== 'BOOK' || at(entry, 'RvslInd') === 'true') return;
    const details = list(entry, 'NtryDtls').flatMap((d) => list(d, 'TxDtls'));
    const transactions: (XmlNode | undefined)[] = details.length > 0 ? details : [undefined];
    for (const tx of transactions) {
      if (asNode(tx?.RtrInf)) continue;
      const own = tx?.Amt ?? asNode(asNode(tx?.AmtDtls)?.TxAmt)?.Amt;
      const money = amountOf(own ?? (transactions.length === 1 ? entry.Amt : undefined), `${path}/Amt`);
      const debtor = asNode(asNode(tx?.RltdPties)?.Dbtr);
      credits.push({
        position: first + credits.length,
        accountIban,
        amount: money.amount,
        currency: money.currency,
        ...referenceOf(tx),
        bookedOn: bookingDate(entry),
        entryRef: at(tx, 'Refs', 'AcctSvcrRef') ?? at(entry, 'AcctSvcrRef') ?? null,
        debtorName: at(debtor, 'Nm') ?? at(debtor, 'Pty', 'Nm') ?? null,
        debtorIban: at(asNode(tx?.RltdPties), 'DbtrAcct', 'Id', 'IBAN')?.replace(/\s+/g, '').toUpperCase() ?? null,
      });
    }
  });
  return credits;
}

function decode(body: string | Uint8Array): string {
  if (typeof body === 'string') return body;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body);
  } catch {
    throw new BankFileError('not_xml', 'the body is not UTF-8 text');
  }
}

/** The message a Document's namespace declares, of those the service reads. */
function messageTypeOf(document: XmlNode): BankFileMessageType {
  const namespaces = Object.entries(document)
    .filter(([name]) => name === '@_xmlns' || name.startsWith('@_xmlns:'))
    .map(([, value]) => String(value));
  const iso = namespaces.filter((ns) => ns.startsWith(ISO_NAMESPACE)).map((ns) => ns.slice(ISO_NAMESPACE.length));
  const known = iso.find((type): type is BankFileMessageType => Object.hasOwn(BANK_FILE_MESSAGES, type));
  if (!known) {
    const named = iso[0] ? `an ISO 20022 ${iso[0]} message` : 'no ISO 20022 message';
    throw new BankFileError('unsupported_message', `the file is ${named}; the service reads ${Object.keys(BANK_FILE_MESSAGES).join(', ')}`);
  }
  return known;
}

/** No more than a 10 MB file of the smallest elements: the limits a caller that names none is held to. */
export const DEFAULT_LIMITS: BankFileLimits = { maxBytes: 10 * 1024 * 1024, maxElements: 500_000, maxEntries: 50_000 };

/**
 * Read a bank file: its message, id and the outcome of each transaction it names. A file beyond
 * `limits` (src/payouts/bankFileLimits.format.ts) is refused before it is parsed, and one naming more entries
 * than `limits.maxEntries` once it is.
 */
export function readBankFile(body: string | Uint8Array, limits: BankFileLimits = DEFAULT_LIMITS): BankFile {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (size > limits.maxBytes)
    throw new BankFileError('too_large', `the file has ${size} bytes, more than ${limits.maxBytes} (BANK_FILE_MAX_BYTES)`);
  const xml = decode(body).replace(/^\uFEFF/, '');
  checkXmlLimits(xml, limits);
  const file = parse(xml);
  if (file.entries.length > limits.maxEntries) {
    throw new BankFileError(
      'over_limits',
      `the file names ${file.entries.length} entries, more than ${limits.maxEntries} (BANK_FILE_MAX_ENTRIES)`,
    );
  }
  return file;
}

function parse(xml: string): BankFile {
  try {
    SyntaxValidator.validate(xml);
  } catch (err) {
    throw new BankFileError('not_xml', `not well-formed XML: ${err instanceof Error ? err.message : String(err)}`);
  }
  // ISO 20022 messages declare no DTD, and a DTD's entities are a way to blow a small file up.
  if (/<!DOCTYPE/i.test(xml)) throw new BankFileError('unsupported_message', 'the file declares a DOCTYPE, which no ISO 20022 message has');
  const parsed = asNode(parser.parse(xml));
  const roots = Object.keys(parsed ?? {}).filter((name) => name !== '?xml');
  const document = asNode(parsed?.Document);
  if (roots.length !== 1 || !document) throw new BankFileError('unsupported_message', 'the root element is not an ISO 20022 Document');
  const messageType = messageTypeOf(document);
  const rootName = BANK_FILE_MESSAGES[messageType];
  const message = child(document, rootName, 'Document');
  const header = child(message, 'GrpHdr', rootName);
  const base = {
    messageType,
    messageId: required(header, `${rootName}/GrpHdr`, 'MsgId'),
    createdAt: required(header, `${rootName}/GrpHdr`, 'CreDtTm'),
  };
  if (messageType === 'pain.002.001.10') {
    const original = child(message, 'OrgnlGrpInfAndSts', rootName);
    return {
      ...base,
      originalMessageId: required(original, `${rootName}/OrgnlGrpInfAndSts`, 'OrgnlMsgId'),
      groupStatus: at(original, 'GrpSts') ?? null,
      groupReasonCode: at(list(original, 'StsRsnInf')[0], 'Rsn', 'Cd') ?? null,
      entries: pain002Entries(message, rootName),
    };
  }
  const reports = messageType === 'camt.053.001.08' ? list(message, 'Stmt') : list(message, 'Ntfctn');
  const reportName = messageType === 'camt.053.001.08' ? 'Stmt' : 'Ntfctn';
  if (reports.length === 0) throw new BankFileError('invalid_message', `${reportName} is required`, rootName);
  const credits: BankFileCredit[] = [];
  reports.forEach((report, i) => credits.push(...camtCredits(report, `${rootName}/${reportName}[${i}]`, credits.length)));
  return {
    ...base,
    originalMessageId: null,
    groupStatus: null,
    groupReasonCode: null,
    entries: reports.flatMap((report, i) => camtEntries(list(report, 'Ntry'), `${rootName}/${reportName}[${i}]`)),
    credits,
  };
}
