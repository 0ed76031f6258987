/**
 * The ISO 20022 bank files (src/payouts/*.format.ts): a pain.001.001.09 built and read back against the
 * message definition's structure, and the bank's answers (pain.002, camt.054, camt.053) read from
 * hand-written samples in test/fixtures/bank-files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { isoAmountText, minorOfIsoAmount, sumDecimalTexts } from '../../src/payouts/bankAmounts.format';
import { BankFileError } from '../../src/payouts/bankFileErrors.format';
import { type CreditTransfer, type Pain001Input, PAIN_001_NAMESPACE, buildPain001 } from '../../src/payouts/pain001.format';
import { readBankFile } from '../../src/payouts/bankFileRead.format';

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/bank-files', name), 'utf8');

const debtor = { name: 'Custody Ltd', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };
const transfers: CreditTransfer[] = [
  {
    endToEndId: 'po-01JDZ6R0A1B2C3D4E5F6G7H8J9',
    amount: 25000n,
    currency: 'EUR',
    creditor: { name: "Mueller + Soehne (O'Neil GmbH)", account: { scheme: 'iban', iban: 'DE94370400440532010000' } },
    remittance: 'Payout po-01JDZ6R0A1B2C3D4E5F6G7H8J9',
  },
  {
    endToEndId: 'po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4',
    amount: 10050n,
    currency: 'EUR',
    creditor: { name: 'Jan de Vries', account: { scheme: 'iban', iban: 'NL82ABNA0417160000' } },
  },
  {
    endToEndId: 'po-01JDZ6T7D8E9F0G1H2J3K4M5N6',
    amount: 1n,
    currency: 'USD',
    creditor: { name: 'Ada Lovelace', account: { scheme: 'us_aba', routingNumber: '110000000', accountNumber: '000123450000' } },
  },
  {
    endToEndId: 'po-01JDZ6V9W0X1Y2Z3A4B5C6D7E8',
    amount: 99999n,
    currency: 'GBP',
    creditor: { name: 'Grace Hopper', account: { scheme: 'iban', iban: 'GB36NWBK60161331920000' } },
  },
];
// SEPA credit transfers and the others go in separate files (docs/bank.md, "The outbox").
const input: Pain001Input = {
  messageId: 'MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F7',
  createdAt: new Date('2026-11-27T09:30:00.123Z'),
  executionDate: '2026-11-27',
  debtor,
  transfers: transfers.slice(0, 2),
};
const otherInput: Pain001Input = {
  ...input,
  messageId: 'MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F8',
  debtor: { ...debtor, initiatorId: 'DE98ZZZ09999999999' },
  transfers: transfers.slice(2),
};

/**
 * The child order of each pain.001.001.09 element the service writes, from the message definition
 * (CustomerCreditTransferInitiationV09 and its types), with the children that must be there.
 */
const SEQUENCES: Record<string, { order: string[]; required: string[] }> = {
  Document: { order: ['CstmrCdtTrfInitn'], required: ['CstmrCdtTrfInitn'] },
  CstmrCdtTrfInitn: { order: ['GrpHdr', 'PmtInf', 'SplmtryData'], required: ['GrpHdr', 'PmtInf'] },
  GrpHdr: {
    order: ['MsgId', 'CreDtTm', 'Authstn', 'NbOfTxs', 'CtrlSum', 'InitgPty', 'FwdgAgt'],
    required: ['MsgId', 'CreDtTm', 'NbOfTxs', 'InitgPty'],
  },
  PmtInf: {
    order: [
      'PmtInfId',
      'PmtMtd',
      'BtchBookg',
      'NbOfTxs',
      'CtrlSum',
      'PmtTpInf',
      'ReqdExctnDt',
      'PoolgAdjstmntDt',
      'Dbtr',
      'DbtrAcct',
      'DbtrAgt',
      'DbtrAgtAcct',
      'InstrForDbtrAgt',
      'UltmtDbtr',
      'ChrgBr',
      'ChrgsAcct',
      'ChrgsAcctAgt',
      'CdtTrfTxInf',
    ],
    required: ['PmtInfId', 'PmtMtd', 'ReqdExctnDt', 'Dbtr', 'DbtrAcct', 'DbtrAgt', 'CdtTrfTxInf'],
  },
  CdtTrfTxInf: {
    order: [
      'PmtId',
      'PmtTpInf',
      'Amt',
      'XchgRateInf',
      'ChrgBr',
      'ChqInstr',
      'UltmtDbtr',
      'IntrmyAgt1',
      'IntrmyAgt1Acct',
      'IntrmyAgt2',
      'IntrmyAgt2Acct',
      'IntrmyAgt3',
      'IntrmyAgt3Acct',
      'CdtrAgt',
      'CdtrAgtAcct',
      'Cdtr',
      'CdtrAcct',
      'UltmtCdtr',
      'InstrForCdtrAgt',
      'InstrForDbtrAgt',
      'Purp',
      'RgltryRptg',
      'Tax',
      'RltdRmtInf',
      'RmtInf',
      'SplmtryData',
    ],
    required: ['PmtId', 'Amt'],
  },
  PmtId: { order: ['InstrId', 'EndToEndId', 'UETR'], required: ['EndToEndId'] },
  PmtTpInf: { order: ['InstrPrty', 'SvcLvl', 'LclInstrm', 'CtgyPurp'], required: [] },
  FinInstnId: { order: ['BICFI', 'ClrSysMmbId', 'LEI', 'Nm', 'PstlAdr', 'Othr'], required: [] },
  ClrSysMmbId: { order: ['ClrSysId', 'MmbId'], required: ['MmbId'] },
  Amt: { order: ['InstdAmt', 'EqvtAmt'], required: [] },
  // PartyIdentification135: the initiating party and the creditor.
  InitgPty: { order: ['Nm', 'PstlAdr', 'Id', 'CtryOfRes', 'CtctDtls'], required: [] },
  Cdtr: { order: ['Nm', 'PstlAdr', 'Id', 'CtryOfRes', 'CtctDtls'], required: [] },
};

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };
const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false });

/** Every element with its name, children's names and text, depth first. */
function* elements(
  nodes: Ordered[],
): Generator<{ name: string; children: string[]; text: string | undefined; attrs: Record<string, string> }> {
  for (const node of nodes) {
    const name = Object.keys(node).find((k) => k !== ':@');
    if (!name || name === '#text' || name === '?xml') continue;
    const kids = node[name] as Ordered[];
    const children = kids.map((k) => Object.keys(k).find((n) => n !== ':@')!).filter((n) => n !== '#text');
    const text = kids.find((k) => '#text' in k)?.['#text'] as string | undefined;
    yield { name, children, text, attrs: node[':@'] ?? {} };
    yield* elements(kids);
  }
}

function structureProblems(xml: string): string[] {
  const problems: string[] = [];
  for (const { name, children } of elements(ordered.parse(xml) as Ordered[])) {
    const rule = SEQUENCES[name];
    if (!rule) continue;
    const positions = children.map((c) => rule.order.indexOf(c));
    children.forEach((c, i) => {
      if (positions[i] === -1) problems.push(`${name} has no child ${c}`);
      else if (i > 0 && positions[i] < positions[i - 1]) problems.push(`${name}: ${c} comes after ${children[i - 1]}`);
    });
    for (const r of rule.required) if (!children.includes(r)) problems.push(`${name} lacks ${r}`);
  }
  return problems;
}

describe('pain.001.001.09 credit transfer files', () => {
  const parse = (xml: string) =>
    new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      parseTagValue: false,
      isArray: (n) => ['PmtInf', 'CdtTrfTxInf'].includes(n),
    }).parse(xml);
  const file = buildPain001(input);
  const doc = parse(file.xml);
  const root = doc.Document.CstmrCdtTrfInitn;
  const other = buildPain001(otherInput);
  const otherRoot = parse(other.xml).Document.CstmrCdtTrfInitn;

  it('follow the message definition: namespace, child order and required elements', () => {
    expect(doc.Document['@xmlns']).toBe(PAIN_001_NAMESPACE);
    expect(structureProblems(file.xml)).toEqual([]);
    expect(structureProblems(other.xml)).toEqual([]);
    // The check itself sees a misplaced element.
    const misplaced = file.xml.replace(/<NbOfTxs>2<\/NbOfTxs>/, '').replace('<InitgPty>', '<NbOfTxs>2</NbOfTxs><InitgPty>');
    expect(structureProblems(misplaced)).toEqual(['GrpHdr: NbOfTxs comes after CtrlSum']);
    expect(structureProblems(file.xml.replace(/<PmtMtd>TRF<\/PmtMtd>/g, ''))).toContain('PmtInf lacks PmtMtd');
  });

  it('count NbOfTxs and CtrlSum exactly, in the header and per payment instruction, one instruction per currency', () => {
    expect(root.GrpHdr).toMatchObject({ MsgId: input.messageId, CreDtTm: '2026-11-27T09:30:00Z', NbOfTxs: '2', CtrlSum: '350.50' });
    expect(file).toMatchObject({ messageId: input.messageId, numberOfTransactions: 2, controlSum: '350.50' });
    // 250.00 + 100.50 EUR to SEPA IBANs: one SEPA instruction.
    expect(root.PmtInf.map((p: any) => [p.PmtInfId, p.NbOfTxs, p.CtrlSum, p.PmtTpInf?.SvcLvl?.Cd ?? null, p.ChrgBr])).toEqual([
      ['MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F7-001', '2', '350.50', 'SEPA', 'SLEV'],
    ]);
    // 0.01 USD and 999.99 GBP: the other file, an instruction per currency.
    expect(otherRoot.PmtInf.map((p: any) => [p.PmtInfId, p.NbOfTxs, p.CtrlSum, p.PmtTpInf?.SvcLvl?.Cd ?? null, p.ChrgBr])).toEqual([
      ['MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F8-001', '1', '0.01', null, 'SHAR'],
      ['MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F8-002', '1', '999.99', null, 'SHAR'],
    ]);
    const all = [...root.PmtInf, ...otherRoot.PmtInf].flatMap((p: any) => p.CdtTrfTxInf);
    expect(all.map((t: any) => [t.PmtId.EndToEndId, t.Amt.InstdAmt['#text'], t.Amt.InstdAmt['@Ccy']])).toEqual([
      ['po-01JDZ6R0A1B2C3D4E5F6G7H8J9', '250.00', 'EUR'],
      ['po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4', '100.50', 'EUR'],
      ['po-01JDZ6T7D8E9F0G1H2J3K4M5N6', '0.01', 'USD'],
      ['po-01JDZ6V9W0X1Y2Z3A4B5C6D7E8', '999.99', 'GBP'],
    ]);
    expect(sumDecimalTexts(root.PmtInf.flatMap((p: any) => p.CdtTrfTxInf).map((t: any) => t.Amt.InstdAmt['#text']))).toBe(
      root.GrpHdr.CtrlSum,
    );
  });

  it('name the custody account as debtor, and each creditor by IBAN, or by ABA routing and account number', () => {
    for (const p of [...root.PmtInf, ...otherRoot.PmtInf]) {
      expect(p).toMatchObject({ PmtMtd: 'TRF', ReqdExctnDt: { Dt: '2026-11-27' }, Dbtr: { Nm: 'Custody Ltd' } });
      expect(p.DbtrAcct).toEqual({ Id: { IBAN: debtor.iban } });
      expect(p.DbtrAgt).toEqual({ FinInstnId: { BICFI: debtor.bic } });
    }
    const [first] = root.PmtInf.flatMap((p: any) => p.CdtTrfTxInf);
    expect(first.CdtrAcct).toEqual({ Id: { IBAN: 'DE94370400440532010000' } });
    expect(first.RmtInf).toEqual({ Ustrd: 'Payout po-01JDZ6R0A1B2C3D4E5F6G7H8J9' });
    // SEPA: the IBAN names the bank, no agent and no address.
    expect(first.CdtrAgt).toBeUndefined();
    expect(first.Cdtr).toEqual({ Nm: "Mueller + Soehne (O'Neil GmbH)" });
    const [us, gb] = otherRoot.PmtInf.flatMap((p: any) => p.CdtTrfTxInf);
    expect(us.CdtrAcct).toEqual({ Id: { Othr: { Id: '000123450000' } } });
    // Outside SEPA: the creditor's country and its agent travel with the transfer.
    expect(us.CdtrAgt).toEqual({ FinInstnId: { ClrSysMmbId: { ClrSysId: { Cd: 'USABA' }, MmbId: '110000000' }, PstlAdr: { Ctry: 'US' } } });
    expect(us.Cdtr).toEqual({ Nm: 'Ada Lovelace', PstlAdr: { Ctry: 'US' } });
    expect(gb.CdtrAgt).toEqual({ FinInstnId: { PstlAdr: { Ctry: 'GB' } } });
    expect(gb.Cdtr).toEqual({ Nm: 'Grace Hopper', PstlAdr: { Ctry: 'GB' } });
  });

  it("name the initiating party by the custody account's identifier when the settings give one", () => {
    expect(root.GrpHdr.InitgPty).toEqual({ Nm: 'Custody Ltd' });
    expect(otherRoot.GrpHdr.InitgPty).toEqual({ Nm: 'Custody Ltd', Id: { OrgId: { Othr: { Id: 'DE98ZZZ09999999999' } } } });
  });

  it('carry names of the SEPA character set as they are, and read back the same text', () => {
    expect(root.PmtInf[0].CdtTrfTxInf[0].Cdtr.Nm).toBe("Mueller + Soehne (O'Neil GmbH)");
  });

  it('are the sample files in test/fixtures byte for byte (the docs show them)', () => {
    expect(file.xml).toBe(fixture('pain.001.001.09-sample.xml'));
    expect(other.xml).toBe(fixture('pain.001.001.09-sample-other.xml'));
  });

  it('refuse what no bank would take', () => {
    const refused = (change: Partial<Pain001Input>) => () => buildPain001({ ...input, ...change });
    expect(refused({ transfers: [] })).toThrow('at least one transfer');
    expect(refused({ messageId: 'MSG_1' })).toThrow(/MsgId/);
    expect(refused({ messageId: 'M'.repeat(36) })).toThrow(/MsgId/);
    expect(refused({ transfers: [transfers[0], transfers[0]] })).toThrow(/appears twice/);
    expect(refused({ transfers: [{ ...transfers[0], amount: 0n }] })).toThrow(RangeError);
    expect(refused({ transfers: [{ ...transfers[0], creditor: { ...transfers[0].creditor, name: 'x'.repeat(71) } }] })).toThrow(/name/);
    // Outside the SEPA character set (docs/bank.md): the file would be refused whole, every tenant's payouts in it.
    for (const name of ['Müller & Söhne <GmbH>', 'Jane\uffffDoe', 'Shop_Owner']) {
      expect(refused({ transfers: [{ ...transfers[0], creditor: { ...transfers[0].creditor, name } }] })).toThrow(/SEPA set/);
    }
    expect(refused({ transfers: [{ ...transfers[0], remittance: 'Payout po_01' }] })).toThrow(/remittance text/);
    expect(refused({ debtor: { ...debtor, iban: 'DE89370400440532013001' } })).toThrow('CUSTODY_ACCOUNT_IBAN');
    expect(refused({ debtor: { ...debtor, bic: 'NOTABIC' } })).toThrow('CUSTODY_ACCOUNT_BIC');
    expect(refused({ executionDate: '27.11.2026' })).toThrow(/execution date/);
    // A SEPA credit transfer and a USD one are different orders of the bank: never one file.
    expect(refused({ transfers })).toThrow('SEPA credit transfers and other transfers go in separate files');
    expect(refused({ debtor: { ...debtor, initiatorId: 'DE98_ZZZ' } })).toThrow('CUSTODY_ACCOUNT_INITIATOR_ID');
  });

  it('are not a bank answer: posting one back is refused by message type', () => {
    expect(() => readBankFile(file.xml)).toThrow(/pain\.001\.001\.09 message; the service reads pain\.002\.001\.10/);
  });
});

describe('amounts between minor units and ISO text', () => {
  it('convert exactly through the currency exponent, never a float', () => {
    expect(isoAmountText(1050n, 'EUR')).toBe('10.50');
    expect(isoAmountText(1000n, 'JPY')).toBe('1000');
    expect(isoAmountText(1n, 'KWD')).toBe('0.001');
    expect(isoAmountText(900719925474099312n, 'EUR')).toBe('9007199254740993.12');
    expect(minorOfIsoAmount('9007199254740993.12', 'EUR', 'x')).toBe(900719925474099312n);
    expect(minorOfIsoAmount('10.5', 'EUR', 'x')).toBe(1050n);
    expect(minorOfIsoAmount('10.500', 'EUR', 'x')).toBe(1050n);
    expect(minorOfIsoAmount('1000', 'JPY', 'x')).toBe(1000n);
    expect(() => isoAmountText(10n ** 19n, 'EUR')).toThrow(/18 digits/);
  });

  it('refuse a digit the currency does not have, and what is no amount', () => {
    expect(() => minorOfIsoAmount('10.005', 'EUR', 'Amt')).toThrow(BankFileError);
    expect(() => minorOfIsoAmount('10.5', 'JPY', 'Amt')).toThrow(/JPY's 0/);
    for (const bad of ['-1.00', '1e3', '1,00', '', '.5']) expect(() => minorOfIsoAmount(bad, 'EUR', 'Amt'), bad).toThrow(BankFileError);
    expect(() => minorOfIsoAmount('1.00', 'XXX', 'Amt')).toThrow(/ISO 4217/);
  });

  it('sum decimal texts of different scales exactly', () => {
    expect(sumDecimalTexts(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimalTexts(['1000', '0.001', '10.50'])).toBe('1010.501');
    expect(sumDecimalTexts([])).toBe('0');
  });
});

describe('pain.002.001.10 status reports', () => {
  it('fail each rejected transaction with its ISO reason mapped, and change nothing for an accepted one', () => {
    const file = readBankFile(fixture('pain.002.001.10-rejections.xml'));
    expect(file).toMatchObject({
      messageType: 'pain.002.001.10',
      messageId: 'STS-20261128-000417',
      createdAt: '2026-11-28T07:12:45+01:00',
      originalMessageId: 'MSG-01JDZ6Q4W8M3T5V7X9Z1B3D5F7',
      groupStatus: 'PART',
    });
    expect(file.entries).toEqual([
      {
        endToEndId: 'po-01JDZ6R0A1B2C3D4E5F6G7H8J9',
        amount: 25000n,
        currency: 'EUR',
        outcome: 'no_change',
        reasonCode: null,
        failureCode: null,
      },
      {
        endToEndId: 'po-01JDZ6R1K2M3N4P5Q6R7S8T9V0',
        amount: 100005n,
        currency: 'EUR',
        outcome: 'failed',
        reasonCode: 'AC04',
        failureCode: 'account_closed',
      },
      {
        endToEndId: 'po-01JDZ6R2W3X4Y5Z6A7B8C9D0E1',
        amount: null,
        currency: null,
        outcome: 'failed',
        reasonCode: 'AC01',
        failureCode: 'invalid_account_number',
      },
      {
        endToEndId: 'po-01JDZ6R3F4G5H6J7K8M9N0P1Q2',
        amount: 6100n,
        currency: 'EUR',
        outcome: 'failed',
        reasonCode: 'MS03',
        failureCode: 'could_not_process',
      },
    ]);
  });

  it('a file rejected whole names the credit transfer file it rejects', () => {
    expect(readBankFile(fixture('pain.002.001.10-file-rejected.xml'))).toEqual({
      messageType: 'pain.002.001.10',
      messageId: 'STS-20261128-000418',
      createdAt: '2026-11-28T07:13:02Z',
      originalMessageId: 'MSG-01JDZ7A0B1C2D3E4F5G6H7J8K9',
      groupStatus: 'RJCT',
      groupReasonCode: 'DU01',
      entries: [],
    });
  });

  it("a transaction without a status of its own takes its instruction's or the file's, and the nearest reason", () => {
    const transaction = '<TxInfAndSts><OrgnlEndToEndId>po-01JDZ7B0C1D2E3F4G5H6J7K8M9</OrgnlEndToEndId></TxInfAndSts>';
    const report = fixture('pain.002.001.10-file-rejected.xml').replace(
      '</OrgnlGrpInfAndSts>',
      `</OrgnlGrpInfAndSts><OrgnlPmtInfAndSts><OrgnlPmtInfId>P1</OrgnlPmtInfId>${transaction}</OrgnlPmtInfAndSts>`,
    );
    expect(readBankFile(report).entries).toEqual([
      {
        endToEndId: 'po-01JDZ7B0C1D2E3F4G5H6J7K8M9',
        amount: null,
        currency: null,
        outcome: 'failed',
        reasonCode: 'DU01',
        failureCode: 'could_not_process',
      },
    ]);
    const accepted = report.replace('<GrpSts>RJCT</GrpSts>', '<GrpSts>ACCP</GrpSts>');
    expect(readBankFile(accepted).entries[0]).toMatchObject({ outcome: 'no_change', reasonCode: null });
    const instruction = accepted.replace(
      '<OrgnlPmtInfId>P1</OrgnlPmtInfId>',
      '<OrgnlPmtInfId>P1</OrgnlPmtInfId><PmtInfSts>RJCT</PmtInfSts><StsRsnInf><Rsn><Cd>AM04</Cd></Rsn></StsRsnInf>',
    );
    expect(readBankFile(instruction).entries[0]).toMatchObject({ outcome: 'failed', reasonCode: 'AM04', failureCode: 'declined' });
  });
});

describe('camt.054.001.08 notifications and camt.053.001.08 statements', () => {
  it('pay each booked debit by EndToEndId (a batch booking by each of its transactions), return a booked credit with return information', () => {
    const file = readBankFile(fixture('camt.054.001.08-debits-and-return.xml'));
    expect(file).toMatchObject({
      messageType: 'camt.054.001.08',
      messageId: 'NTF-20261128-0093',
      originalMessageId: null,
      groupStatus: null,
    });
    expect(file.entries).toEqual([
      {
        endToEndId: 'po-01JDZ6R0A1B2C3D4E5F6G7H8J9',
        amount: 25000n,
        currency: 'EUR',
        outcome: 'paid',
        reasonCode: null,
        failureCode: null,
      },
      {
        endToEndId: 'po-01JDZ6S5T6V7W8X9Y0Z1A2B3C4',
        amount: 10050n,
        currency: 'EUR',
        outcome: 'paid',
        reasonCode: null,
        failureCode: null,
      },
      { endToEndId: 'po-01JDZ6T7D8E9F0G1H2J3K4M5N6', amount: 7525n, currency: 'EUR', outcome: 'paid', reasonCode: null, failureCode: null },
      {
        endToEndId: 'po-01JDZ5M0N1P2Q3R4S5T6V7W8X9',
        amount: 4000n,
        currency: 'EUR',
        outcome: 'returned',
        reasonCode: 'AC04',
        failureCode: 'account_closed',
      },
      // Pending: nothing yet. An incoming credit that is no return, and a fee without EndToEndId: no payout's.
      {
        endToEndId: 'po-01JDZ6V9W0X1Y2Z3A4B5C6D7E8',
        amount: 1200n,
        currency: 'EUR',
        outcome: 'no_change',
        reasonCode: null,
        failureCode: null,
      },
      { endToEndId: 'INV-2026-1188', amount: 500000n, currency: 'EUR', outcome: 'no_change', reasonCode: null, failureCode: null },
      { endToEndId: null, amount: 250n, currency: 'EUR', outcome: 'no_change', reasonCode: null, failureCode: null },
    ]);
  });

  it('read a statement whose elements carry a namespace prefix, with amounts in AmtDtls and any return reason mapped', () => {
    const file = readBankFile(fixture('camt.053.001.08-statement.xml'));
    expect(file).toMatchObject({ messageType: 'camt.053.001.08', messageId: 'STMT-20261130-0001', createdAt: '2026-11-30T23:59:00Z' });
    expect(file.entries).toEqual([
      {
        endToEndId: 'po-01JE1A0B1C2D3E4F5G6H7J8K9M',
        amount: 10000n,
        currency: 'EUR',
        outcome: 'paid',
        reasonCode: null,
        failureCode: null,
      },
      {
        endToEndId: 'po-01JE1B2C3D4E5F6G7H8J9K0M1N',
        amount: 3000n,
        currency: 'EUR',
        outcome: 'returned',
        reasonCode: 'MD07',
        failureCode: 'could_not_process',
      },
    ]);
  });

  it('read bytes as UTF-8, with or without a byte order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(fixture('camt.053.001.08-statement.xml'))]);
    expect(readBankFile(bytes).messageId).toBe('STMT-20261130-0001');
  });
});

describe('what is not a bank file the service reads', () => {
  const refusal = (body: string | Uint8Array) => {
    try {
      readBankFile(body);
    } catch (err) {
      if (err instanceof BankFileError) return { reason: err.reason, message: err.message };
      throw err;
    }
    throw new Error('read without a refusal');
  };

  it('a malformed file is not_xml, naming the problem', () => {
    expect(refusal(fixture('malformed-truncated.xml'))).toMatchObject({
      reason: 'not_xml',
      message: expect.stringMatching(/^not well-formed XML: /),
    });
    expect(refusal('')).toMatchObject({ reason: 'not_xml' });
    expect(refusal('{"json": true}')).toMatchObject({ reason: 'not_xml' });
    expect(refusal(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e]))).toEqual({
      reason: 'not_xml',
      message: 'the body is not UTF-8 text',
    });
  });

  it('another message, another root or a DOCTYPE is unsupported_message', () => {
    expect(refusal(fixture('camt.052.001.08-unsupported.xml'))).toMatchObject({
      reason: 'unsupported_message',
      message: expect.stringMatching(/camt\.052\.001\.08/),
    });
    expect(refusal('<Invoice xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"/>')).toMatchObject({ reason: 'unsupported_message' });
    expect(refusal('<Document xmlns="urn:example"><x/></Document>')).toMatchObject({
      reason: 'unsupported_message',
      message: /no ISO 20022 message/,
    });
    const older = fixture('camt.053.001.08-statement.xml').replace('camt.053.001.08"', 'camt.053.001.02"');
    expect(refusal(older)).toMatchObject({ reason: 'unsupported_message' });
    const laughs = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]>${fixture('pain.002.001.10-file-rejected.xml').replace(/^<\?xml[^>]*>/, '')}`;
    expect(refusal(laughs)).toMatchObject({ reason: 'unsupported_message', message: /DOCTYPE/ });
  });

  it('a message missing what its definition requires, or with an amount its currency cannot hold, is invalid_message with where', () => {
    expect(refusal(fixture('camt.054.001.08-amount-too-precise.xml'))).toEqual({
      reason: 'invalid_message',
      message: "10.005 EUR has more fractional digits than EUR's 2 (at BkToCstmrDbtCdtNtfctn/Ntfctn[0]/Ntry[0]/Amt)",
    });
    const noMsgId = fixture('pain.002.001.10-file-rejected.xml').replace('<MsgId>STS-20261128-000418</MsgId>', '');
    expect(refusal(noMsgId)).toEqual({ reason: 'invalid_message', message: 'MsgId is required (at CstmrPmtStsRpt/GrpHdr)' });
    const noStatus = fixture('camt.054.001.08-debits-and-return.xml').replace('<Sts>\n          <Cd>PDNG</Cd>\n        </Sts>', '');
    expect(refusal(noStatus)).toMatchObject({ reason: 'invalid_message', message: /Sts\/Cd is required \(at .*Ntry\[3\]\)/ });
    const sideways = fixture('camt.054.001.08-debits-and-return.xml').replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>BOTH</CdtDbtInd>');
    expect(refusal(sideways)).toMatchObject({ reason: 'invalid_message' });
    const noCurrency = fixture('camt.054.001.08-debits-and-return.xml').replace('<Amt Ccy="EUR">350.50</Amt>', '<Amt>350.50</Amt>');
    expect(refusal(noCurrency)).toMatchObject({ reason: 'invalid_message', message: /Ccy/ });
  });
});

describe('hostile files (docs/bank.md, "Limits")', () => {
  /** What reading `xml` throws: a BankFileError's reason and message, or the name of any other error; 'read' when nothing is thrown. */
  const refusal = (xml: string) => {
    try {
      readBankFile(xml);
      return 'read';
    } catch (err) {
      return err instanceof BankFileError ? `${err.reason}: ${err.message}` : `${(err as Error).name}: ${(err as Error).message}`;
    }
  };

  it('an element named __proto__ is refused as no ISO 20022 name', () => {
    expect(refusal(fixture('hostile-proto-element.xml'))).toMatch(/^over_limits: "__proto__" is not an element name/);
  });

  it('ten thousand levels of nesting are refused, never a stack overflow', () => {
    const deep = fixture('hostile-deep-nesting.xml').replace('<!--DEEP-->', '<Nest>'.repeat(10_000) + '</Nest>'.repeat(10_000));
    expect(refusal(deep)).toMatch(/^over_limits: elements nest deeper than 32 levels/);
  });

  it('65,536 EndToEndIds are more entries than a file may name', () => {
    const template = fixture('hostile-many-end-to-end-ids.xml');
    const transaction = /<TxInfAndSts>[\s\S]*<\/TxInfAndSts>/.exec(template)![0];
    const many = template.replace(transaction, Array.from({ length: 65_536 }, (_, i) => transaction.replace('__N__', String(i))).join(''));
    expect(refusal(many)).toMatch(/^over_limits: the file names 65536 entries, more than 50000/);
  });

  it('880,000 attributes are refused unparsed', () => {
    const wide = fixture('hostile-many-attributes.xml').replace(
      '<!--ATTRIBUTES-->',
      Array.from({ length: 880_000 }, (_, i) => `a${i}="1"`).join(' '),
    );
    expect(refusal(wide)).toMatch(/^over_limits: an element has more than 8 attributes/);
  });
});
