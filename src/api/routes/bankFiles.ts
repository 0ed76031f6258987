/** The bank file routes (docs/payouts.md, "What the service reads"): take a file the bank returned, read one taken. Parse, call one use case, respond. */
import { scopeOf } from '../../domain/tenancy';
import type { BankFilesService } from '../../services/bankFiles';
import { callOf } from '../context';
import { ApiError } from '../errors';
import { Routes } from '../registry';
import { BankFile } from '../schemas';

const EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr><MsgId>NTF-20261128-0093</MsgId><CreDtTm>2026-11-28T16:05:00+01:00</CreDtTm></GrpHdr>
    <Ntfctn>
      <Id>NTF-20261128-0093-1</Id>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
      <Ntry>
        <Amt Ccy="EUR">10.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BkTxCd/>
        <NtryDtls><TxDtls><Refs><EndToEndId>po-01JDZ6R0A1B2C3D4E5F6G7H8J9</EndToEndId></Refs></TxDtls></NtryDtls>
      </Ntry>
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>`;

export function bankFileRoutes(bankFiles: BankFilesService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'bank file', 'The bank file id (bf_…), as POST /api/v1/bank_files answered it');
  const tag = 'Payouts';

  routes.add(
    {
      method: 'post',
      path: '/bank_files',
      tag,
      summary: 'Take a file the bank returned: a pain.002 status report, or a camt.054 or camt.053 about the custody account',
      description:
        'The raw XML as the bank sent it, with a live key, up to BANK_FILE_MAX_BYTES. Its entries are matched to payouts by ' +
        'EndToEndId: a rejected transaction fails its payout (the ISO reason mapped to a failure_code), a booked debit pays it, a ' +
        'booked credit with return information returns it. What changed no payout is listed in unmatched, with why. A file is ' +
        'taken once, by its message id: sent again, it answers 200 with the same object and changes nothing.',
      rawBody: { contentType: 'application/xml', description: 'The ISO 20022 XML file, byte for byte', example: EXAMPLE },
      responses: {
        201: { description: 'The file, taken now', schema: BankFile },
        200: { description: 'The same file, taken before: its first answer, nothing changed', schema: BankFile },
      },
      errors: ['forbidden'],
    },
    async (ctx) => {
      // After authentication: a request without credentials is a 401 whatever it sends.
      if (!ctx.is('application/xml', 'text/xml'))
        throw new ApiError(415, 'unsupported_media_type', 'send bank files as Content-Type: application/xml');
      const { first, view } = await bankFiles.receive(callOf(ctx.state), ctx.state.rawBody ?? Buffer.alloc(0));
      ctx.status = first ? 201 : 200;
      ctx.body = view;
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/bank_files/:id',
      tag,
      summary: 'Read a bank file taken: what it did to which payout, and what it could not match',
      responses: { 200: { description: 'The bank file', schema: BankFile } },
    },
    async (ctx) => {
      ctx.body = await bankFiles.get(scopeOf(ctx.state.principal!), ctx.params.id);
    },
  );

  return routes;
}
