/**
 * The bank file routes (docs/bank.md): the bank's files are the operator's, taken from the inbox by
 * the worker; a tenant reads of one only the entries that touched its own payouts. Posting a file
 * with an API key is retired (410 naming the inbox), its body never read.
 */
import { scopeOf } from '../tenants/tenancy.rules';
import type { BankFilesService } from './bankFiles.service';
import { ApiError } from '../platform/http/httpErrors';
import { Routes } from '../platform/http/registry';
import { BankFile } from '../platform/http/schemas';

/** The path whose body is never read (src/platform/http/app.ts): the route answers 410 whatever it is sent. */
export const RETIRED_BANK_FILES_PATH = '/api/v1/bank_files';

export const BANK_FILES_RETIRED =
  "bank files are the operator's, taken from the bank inbox (BANK_INBOX_DIR) by the worker, not posted with an API key: " +
  'the operator drops them there or runs `npm run bank-files -- take FILE` (docs/bank.md)';

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
  routes.param('id', 'bank file', 'The bank file id (bf_…), as the payout it touched was told of it');
  const tag = 'Payouts';

  routes.add(
    {
      method: 'post',
      path: '/bank_files',
      tag,
      summary: 'Retired: bank files are taken from the operator’s bank inbox, never posted with an API key',
      description:
        "One custody account holds every tenant's live money, so the bank's files carry every tenant's entries: they are the " +
        "operator's. They arrive in BANK_INBOX_DIR, where a Temporal Schedule takes each once for the whole service " +
        '(docs/bank.md). This route answers 410 in live and test mode alike, and reads no body.',
      deprecated: true,
      rawBody: { contentType: 'application/xml', description: 'Not read', example: EXAMPLE },
      responses: {},
      errors: ['route_retired'],
    },
    () => {
      throw new ApiError(410, 'route_retired', BANK_FILES_RETIRED, { replaced_by: 'BANK_INBOX_DIR' }, { Connection: 'close' });
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/bank_files/:id',
      tag,
      summary: 'Read a bank file taken from the bank inbox: what it did to your payouts',
      description:
        'Only the entries that touched your own payouts (the file is the operator’s, and carries every account’s entries); ' +
        'a file that touched none of them is a 404.',
      responses: { 200: { description: 'The bank file', schema: BankFile } },
    },
    async (ctx) => {
      ctx.body = await bankFiles.get(scopeOf(ctx.state.principal!), ctx.params.id);
    },
  );

  return routes;
}
