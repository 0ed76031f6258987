/**
 * The custody account's end-of-day statement, `camt.053.001.08`, read for its reconciliation
 * (docs/reconciliation.md): the statement's account, currency and date, its opening and closing
 * booked balances (`OPBD`, `CLBD`) and every booked entry with the references it carries. Read with
 * the same parser and limits as the inbox's files (docs/bank.md, "Limits"); amounts stay text until
 * converted exactly to minor units. A statement of another account than the custody account is
 * refused here, before anything is compared.
 */
import { XMLParser } from 'fast-xml-parser';
import { SyntaxValidator } from 'fast-xml-validator';
import { minorOfIsoAmount } from '../payouts/bankAmounts.format';
import { BankFileError } from '../payouts/bankFileErrors.format';
import { type BankFileLimits, checkXmlLimits } from '../payouts/bankFileLimits.format';

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';

/** One booked entry (or one transaction of a batch booking) as the bank sees it: + credit, − debit. */
export interface StatementEntry {
  amount: bigint;
  bookedOn: string;
  endToEndId: string | null;
  /** The creditor reference (RF…) a credit carried, if any. */
  creditorReference: string | null;
  /** The bank's own reference for the entry (`AcctSvcrRef`). */
  entryRef: string | null;
}

export interface Statement {
  messageId: string;
  statementId: string;
  iban: string;
  currency: string;
  /** The statement's day (YYYY-MM-DD): `FrToDt/ToDtTm`, else the closing balance's date. */
  date: string;
  /** Signed minor units (a DBIT balance is negative); null when the statement states no OPBD. */
  openingBalance: bigint | null;
  closingBalance: bigint;
  entries: StatementEntry[];
}

type XmlNode = Record<string, unknown>;

const REPEATED = new Set(['Stmt', 'Ntry', 'NtryDtls', 'TxDtls', 'Bal', 'CdtrRefInf', 'Strd']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Values stay text: an amount is converted exactly, never through a number.
  parseTagValue: false,
  parseAttributeValue: false,
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

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  const text = asNode(value)?.['#text'];
  return typeof text === 'string' ? text.trim() : undefined;
}

function at(node: XmlNode | undefined, ...names: string[]): string | undefined {
  let value: unknown = node;
  for (const name of names) value = Array.isArray(value) ? asNode(value[0])?.[name] : asNode(value)?.[name];
  return textOf(Array.isArray(value) ? value[0] : value);
}

const invalid = (message: string, path: string) => new BankFileError('invalid_message', message, path);

function required(node: XmlNode | undefined, path: string, ...names: string[]): string {
  const text = at(node, ...names);
  if (!text) throw invalid(`${names.join('/')} is required`, path);
  return text;
}

/** An amount with its CdtDbtInd, signed as the account holder sees it: + credit, − debit. */
function signedAmount(node: XmlNode, currency: string, path: string): bigint {
  const amt = asNode(node.Amt);
  const ccy = amt?.['@_Ccy'];
  const text = textOf(node.Amt);
  if (typeof ccy !== 'string' || !text) throw invalid('an amount with its Ccy is required', `${path}/Amt`);
  if (ccy !== currency) throw invalid(`the amount is in ${ccy}, the statement's account in ${currency}`, `${path}/Amt`);
  const minor = minorOfIsoAmount(text, ccy, `${path}/Amt`);
  const direction = required(node, path, 'CdtDbtInd');
  if (direction !== 'CRDT' && direction !== 'DBIT') throw invalid('CdtDbtInd is CRDT or DBIT', path);
  return direction === 'CRDT' ? minor : -minor;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const dayOf = (text: string | undefined, path: string): string => {
  if (!text || !ISO_DATE.test(text)) throw invalid(`"${text ?? ''}" is not an ISO date`, path);
  return text.slice(0, 10);
};

/** An IBAN as written for comparison: no spaces, upper case. */
export const normalIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();

/** The booked entries of a statement, a batch booking's transactions each on its own when each states its amount. */
function entriesOf(stmt: XmlNode, currency: string, root: string): StatementEntry[] {
  return list(stmt, 'Ntry').flatMap((entry, i) => {
    const path = `${root}/Ntry[${i}]`;
    const status = at(entry, 'Sts', 'Cd') ?? at(entry, 'Sts');
    if (!status) throw invalid('Sts/Cd is required', path);
    // Pending and informational entries move no money yet.
    if (status !== 'BOOK') return [];
    const amount = signedAmount(entry, currency, path);
    const bookedOn = dayOf(at(entry, 'BookgDt', 'Dt') ?? at(entry, 'BookgDt', 'DtTm'), `${path}/BookgDt`);
    const entryRef = at(entry, 'AcctSvcrRef') ?? null;
    const txs = list(entry, 'NtryDtls').flatMap((d) => list(d, 'TxDtls'));
    const refsOf = (tx: XmlNode | undefined) => {
      const e2e = at(tx, 'Refs', 'EndToEndId');
      return {
        endToEndId: e2e && e2e !== 'NOTPROVIDED' ? e2e : null,
        creditorReference: at(tx, 'RmtInf', 'Strd', 'CdtrRefInf', 'Ref') ?? null,
      };
    };
    const own = txs.map((tx) => asNode(asNode(tx.AmtDtls)?.TxAmt)?.Amt ?? tx.Amt);
    if (txs.length > 1 && own.every((a) => a !== undefined)) {
      const sign = amount < 0n ? -1n : 1n;
      return txs.map((tx, k) => ({
        amount: sign * minorOfIsoAmount(textOf(own[k]) ?? '', currency, `${path}/NtryDtls/TxDtls[${k}]`),
        bookedOn,
        entryRef,
        ...refsOf(tx),
      }));
    }
    return [{ amount, bookedOn, entryRef, ...refsOf(txs[0]) }];
  });
}

/**
 * Read one camt.053.001.08 statement of `custodyIban`'s account. Anything else — not XML, another
 * message, more than one statement, a statement of another account — is a BankFileError.
 */
export function readStatement(body: string | Uint8Array, custodyIban: string, limits: BankFileLimits): Statement {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (size > limits.maxBytes) throw new BankFileError('too_large', `the file has ${size} bytes, more than ${limits.maxBytes}`);
  let xml: string;
  try {
    xml = (typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body)).replace(/^\uFEFF/, '');
  } catch {
    throw new BankFileError('not_xml', 'the body is not UTF-8 text');
  }
  checkXmlLimits(xml, limits);
  try {
    SyntaxValidator.validate(xml);
  } catch (err) {
    throw new BankFileError('not_xml', `not well-formed XML: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (/<!DOCTYPE/i.test(xml)) throw new BankFileError('unsupported_message', 'the file declares a DOCTYPE, which no ISO 20022 message has');
  const document = asNode(asNode(parser.parse(xml))?.Document);
  const namespaces = Object.entries(document ?? {}).filter(([n]) => n === '@_xmlns' || n.startsWith('@_xmlns:'));
  if (!document || !namespaces.some(([, ns]) => ns === NAMESPACE))
    throw new BankFileError('unsupported_message', 'the file is not a camt.053.001.08 statement');
  const message = asNode(document.BkToCstmrStmt);
  const root = 'BkToCstmrStmt';
  const messageId = required(message, `${root}/GrpHdr`, 'GrpHdr', 'MsgId');
  const statements = list(message, 'Stmt');
  if (statements.length !== 1) throw invalid(`one Stmt is required, the file has ${statements.length}`, root);
  const stmt = statements[0];
  const path = `${root}/Stmt[0]`;
  const iban = normalIban(required(stmt, path, 'Acct', 'Id', 'IBAN'));
  if (iban !== normalIban(custodyIban))
    throw new BankFileError('invalid_message', `the statement is of ${iban}, not of the custody account (CUSTODY_ACCOUNT_IBAN)`, path);
  const balances = list(stmt, 'Bal');
  const balance = (code: string) => balances.findIndex((b) => at(b, 'Tp', 'CdOrPrtry', 'Cd') === code);
  const closing = balance('CLBD');
  if (closing < 0) throw invalid('a closing booked balance (CLBD) is required', path);
  const closingNode = balances[closing];
  const currency = at(stmt, 'Acct', 'Ccy') ?? textOf(asNode(closingNode.Amt)?.['@_Ccy']) ?? '';
  const opening = balance('OPBD');
  const date = dayOf(at(stmt, 'FrToDt', 'ToDtTm') ?? at(closingNode, 'Dt', 'Dt') ?? at(closingNode, 'Dt', 'DtTm'), `${path}/FrToDt`);
  const entries = entriesOf(stmt, currency, path);
  if (entries.length > limits.maxEntries)
    throw new BankFileError('over_limits', `the statement has more than ${limits.maxEntries} entries`);
  return {
    messageId,
    statementId: at(stmt, 'Id') ?? messageId,
    iban,
    currency,
    date,
    openingBalance: opening < 0 ? null : signedAmount(balances[opening], currency, `${path}/Bal[${opening}]`),
    closingBalance: signedAmount(closingNode, currency, `${path}/Bal[${closing}]`),
    entries,
  };
}
