/**
 * Returns (docs/bank.md, "Returns"), with a real worker, Temporal and PostgreSQL: a tenant returns its
 * unapplied credit; the next batch's pain.001 carries it back to the debtor account the entry named;
 * a pain.002 rejecting it leaves the credit unapplied again; a booked debit pays it, the ledger
 * balanced; another tenant cannot return it; a refund of a payment funded by transfer is paid back the
 * same way (an api payment's is not); the operator returns its own with `bank-files -- return` and
 * applies one with `bank-files -- apply`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { findLedgerViolations } from '../src/ledger/ledger.repository';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { payoutBatchWorkflow } from '../src/platform/workflows.workflow';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'returns-outbox-')), 'outbox');
const CUSTODY = 'DE89370400440532013000';
const stack = useStack({
  env: {
    CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
    CUSTODY_ACCOUNT_IBAN: CUSTODY,
    CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
    PAYOUT_OUTBOX_DIR: outbox,
    PAYOUT_BATCH_INTERVAL: '365 days',
    BANK_INBOX_INTERVAL: '365 days',
  },
});
const account = useAccount(stack);
const stranger = useAccount(stack);

const inbox = () => bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
const run = `${Date.now()}`;
let files = 0;

/** A camt.054 of one booked entry to the custody account. */
function notification(entry: { ind: 'CRDT' | 'DBIT'; amount: string; details: string }): Buffer {
  const id = `RTN-${run}-${++files}`;
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
<GrpHdr><MsgId>${id}</MsgId><CreDtTm>2026-12-06T10:00:00Z</CreDtTm></GrpHdr>
<Ntfctn><Id>${id}</Id><CreDtTm>2026-12-06T10:00:00Z</CreDtTm><Acct><Id><IBAN>${CUSTODY}</IBAN></Id></Acct>
<Ntry><Amt Ccy="EUR">${entry.amount}</Amt><CdtDbtInd>${entry.ind}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>2026-12-06</Dt></BookgDt><AcctSvcrRef>${id}-E1</AcctSvcrRef>
<NtryDtls><TxDtls>${entry.details}</TxDtls></NtryDtls></Ntry>
</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`);
}

/** A credit from Ada Payer's account, with `remittance` as its reference text. */
const credit = (amount: string, remittance: string) =>
  notification({
    ind: 'CRDT',
    amount,
    details: `<RltdPties><Dbtr><Pty><Nm>Ada Payer</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>FR1420041010050500013M02606</IBAN></Id></DbtrAcct></RltdPties><RmtInf><Ustrd>${remittance}</Ustrd></RmtInf>`,
  });

const debit = (amount: string, endToEndId: string) =>
  notification({
    ind: 'DBIT',
    amount,
    details: `<Refs><EndToEndId>${endToEndId}</EndToEndId></Refs><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd>`,
  });

const rejection = (originalMessageId: string, endToEndId: string) =>
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>
<GrpHdr><MsgId>STS-${run}-${++files}</MsgId><CreDtTm>2026-12-06T11:00:00Z</CreDtTm></GrpHdr>
<OrgnlGrpInfAndSts><OrgnlMsgId>${originalMessageId}</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId></OrgnlGrpInfAndSts>
<OrgnlPmtInfAndSts><OrgnlPmtInfId>${originalMessageId}-001</OrgnlPmtInfId>
<TxInfAndSts><OrgnlEndToEndId>${endToEndId}</OrgnlEndToEndId><TxSts>RJCT</TxSts><StsRsnInf><Rsn><Cd>AC04</Cd></Rsn></StsRsnInf></TxInfAndSts>
</OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>`);

const runBatch = () =>
  stack.client.workflow.execute(payoutBatchWorkflow, { taskQueue: stack.taskQueue, workflowId: `payout-batch-returns-${Date.now()}` });

/** The transfers of the pain.001 file `messageId` wrote. */
function transfersOf(messageId: string) {
  const doc = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    isArray: (name) => ['PmtInf', 'CdtTrfTxInf'].includes(name),
  }).parse(fs.readFileSync(path.join(outbox, `${messageId}.xml`), 'utf8'));
  const initiation = doc.Document.CstmrCdtTrfInitn;
  const transfers = (initiation.PmtInf as any[]).flatMap((p) =>
    (p.CdtTrfTxInf as any[]).map((t) => ({
      endToEndId: t.PmtId.EndToEndId as string,
      amount: String(t.Amt.InstdAmt['#text']),
      name: t.Cdtr.Nm as string,
      iban: t.CdtrAcct.Id.IBAN as string,
    })),
  );
  return { header: initiation.GrpHdr, transfers };
}

/** A live unapplied credit of the account: 30.00 over a 100.00 payment funded by transfer. */
async function unappliedCredit(): Promise<{ id: string; payment: string }> {
  const p = await stack.http.post('/api/v1/payments', {
    key: account.live_api_key,
    body: validPayment({ funding: 'bank_transfer', amount: 100, currency: 'EUR' }),
  });
  expect(p.status).toBe(201);
  expect((await inbox().take(credit('130.00', p.body.funding_reference), 'test')).outcome).toBe('taken');
  const row = await stack.db('bank_credits').where({ payment_id: p.body.id, status: 'unapplied' }).first('id');
  expect(row).toBeDefined();
  return { id: row.id, payment: p.body.id };
}

const ret = (key: string, id: string) => stack.http.post(`/api/v1/bank_credits/${id}/return`, { key, body: {} });
const creditOf = async (id: string) =>
  ((await stack.http.get('/api/v1/bank_credits', { key: account.live_api_key })).body.data as any[]).find((c) => c.id === id);

describe('returning an unapplied credit to the account that sent it', () => {
  it('writes it in the next pain.001; a rejection leaves it unapplied again; a booked debit pays it, the ledger balanced', async () => {
    const c = await unappliedCredit();
    // Another tenant cannot return it, in either mode: nothing changes.
    expect((await ret(stranger.live_api_key, c.id)).status).toBe(404);
    expect((await ret(account.test_api_key, c.id)).status).toBe(404);
    const res = await ret(account.live_api_key, c.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, status: 'returned', amount: 30, currency: 'EUR', debtor_last4: '2606' });
    // Only once.
    expect((await ret(account.live_api_key, c.id)).status).toBe(409);

    const batch = await runBatch();
    const sepa = batch.files.find((f) => f.endsWith('-S'))!;
    const { header, transfers } = transfersOf(sepa);
    const back = await stack.db('bank_returns').where({ credit_id: c.id }).first();
    expect(back).toMatchObject({ status: 'in_file', message_id: sepa, kind: 'credit_return' });
    expect(transfers).toContainEqual({
      endToEndId: back.end_to_end_id,
      amount: '30.00',
      name: 'Ada Payer',
      iban: 'FR1420041010050500013M02606',
    });
    expect(Number(header.NbOfTxs)).toBe(transfers.length);
    // The payer's name and account never enter Temporal.
    const history = JSON.stringify(await stack.client.workflow.getHandle(`bank-return-${c.id}-1`).fetchHistory());
    expect(history).not.toContain('Ada Payer');
    expect(history).not.toContain('FR1420041010050500013M02606');

    // The bank refuses it: the return failed, the credit unapplied again.
    expect((await inbox().take(rejection(sepa, back.end_to_end_id), 'test')).outcome).toBe('taken');
    expect(await stack.db('bank_returns').where({ id: back.id }).first('status')).toEqual({ status: 'failed' });
    expect((await creditOf(c.id)).status).toBe('unapplied');

    // Returned again, in the next file, and paid: the money leaves the custody account.
    expect((await ret(account.live_api_key, c.id)).status).toBe(200);
    const next = (await runBatch()).files.find((f) => f.endsWith('-S'))!;
    const again = await stack.db('bank_returns').where({ credit_id: c.id, status: 'in_file' }).first();
    expect(again.message_id).toBe(next);
    expect(again.end_to_end_id).not.toBe(back.end_to_end_id);
    expect(transfersOf(next).transfers.map((t) => t.endToEndId)).toContain(again.end_to_end_id);
    expect((await inbox().take(debit('30.00', again.end_to_end_id), 'test')).outcome).toBe('taken');
    expect(await stack.db('bank_returns').where({ id: again.id }).first('status')).toEqual({ status: 'paid' });
    expect((await creditOf(c.id)).status).toBe('returned');
    const balance = await stack
      .db('ledger_account_balances')
      .where({ address: `bank_credit:${c.id}` })
      .first('balance_minor');
    expect(Number(balance.balance_minor)).toBe(0);
    expect(await stack.db('ledger_entries').where({ type: 'bank_return_paid', account_id: account.account_id }).count({ n: '*' })).toEqual([
      { n: '1' },
    ]);
    expect((await findLedgerViolations(stack.db, account.account_id)).violations).toEqual([]);
  });

  it('returns a test-mode credit through the simulated bank at once', async () => {
    const booked = await stack.http.post('/api/v1/test_helpers/bank_transfers', {
      key: account.test_api_key,
      body: { reference: 'no reference', amount: 12, currency: 'EUR' },
    });
    expect(booked.status).toBe(201);
    const id = booked.body.bank_credits[0].id as string;
    // With an Idempotency-Key: the retry answers the same, one return, its EndToEndId still of the SEPA set.
    const headers = { 'Idempotency-Key': `return-${id}` };
    const res = await stack.http.post(`/api/v1/bank_credits/${id}/return`, { key: account.test_api_key, body: {}, headers });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('returned');
    const again = await stack.http.post(`/api/v1/bank_credits/${id}/return`, { key: account.test_api_key, body: {}, headers });
    expect(again.body).toEqual(res.body);
    const rows = await stack.db('bank_returns').where({ credit_id: id }).select('status', 'end_to_end_id');
    expect(rows.map((r) => r.status)).toEqual(['paid']);
    expect(rows[0].end_to_end_id).toMatch(/^rt-[A-Z0-9]{26}$/);
    expect((await findLedgerViolations(stack.db, account.account_id)).violations).toEqual([]);
    // Its account's events: received, then returned, once each (docs/bank.md, "Events").
    const events = (await stack.http.get('/api/v1/events?limit=100', { key: account.test_api_key })).body.data as {
      type: string;
      bank_credit_id?: string;
    }[];
    expect(
      events
        .filter((e) => e.bank_credit_id === id)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['bank_credit.received', 'bank_credit.returned']);
  });
});

describe('a refund of a payment funded by transfer', () => {
  it("is paid back to the account that sent the money in the next pain.001; an api payment's refund sends nothing", async () => {
    const p = await stack.http.post('/api/v1/payments', {
      key: account.live_api_key,
      body: validPayment({ funding: 'bank_transfer', amount: 50, currency: 'EUR' }),
    });
    expect(p.status).toBe(201);
    expect((await inbox().take(credit('50.00', p.body.funding_reference), 'test')).outcome).toBe('taken');
    await eventually(async () =>
      (await stack.http.get(`/api/v1/payments/${p.body.id}`, { key: account.live_api_key })).body.status === 'in_custody'
        ? true
        : undefined,
    );
    const refunded = await stack.http.post(`/api/v1/payments/${p.body.id}/refund`, { key: account.live_api_key, body: { amount: 20 } });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    // An api payment's refund stays owed to the platform: no transfer.
    const api = await stack.http.post('/api/v1/payments', {
      key: account.live_api_key,
      body: validPayment({ amount: 10, currency: 'EUR' }),
    });
    expect((await stack.http.post(`/api/v1/payments/${api.body.id}/deposit`, { key: account.live_api_key, body: {} })).status).toBe(200);
    expect((await stack.http.post(`/api/v1/payments/${api.body.id}/refund`, { key: account.live_api_key, body: {} })).status).toBe(200);

    const sepa = (await runBatch()).files.find((f) => f.endsWith('-S'))!;
    const back = await stack.db('bank_returns').where({ payment_id: p.body.id, kind: 'refund' }).first();
    expect(back).toMatchObject({ status: 'in_file', message_id: sepa });
    expect(transfersOf(sepa).transfers).toContainEqual({
      endToEndId: back.end_to_end_id,
      amount: '20.00',
      name: 'Ada Payer',
      iban: 'FR1420041010050500013M02606',
    });
    expect(await stack.db('bank_returns').where({ payment_id: api.body.id })).toEqual([]);
    expect((await inbox().take(debit('20.00', back.end_to_end_id), 'test')).outcome).toBe('taken');
    expect(await stack.db('bank_returns').where({ id: back.id }).first('status')).toEqual({ status: 'paid' });
    expect((await findLedgerViolations(stack.db, account.account_id)).violations).toEqual([]);
    // A second batch makes no second refund transfer.
    await runBatch();
    expect(await stack.db('bank_returns').where({ payment_id: p.body.id, kind: 'refund' }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });
});

describe("the operator's credits, by hand", () => {
  const cli = (...args: string[]) =>
    promisify(execFile)(
      process.execPath,
      [path.join(__dirname, '../node_modules/tsx/dist/cli.mjs'), path.join(__dirname, '../scripts/bank-files.ts'), ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: stack.config.DATABASE_URL,
          TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
          TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
        },
      },
    );

  it('returns one with `npm run bank-files -- return ID`: written in the next pain.001', async () => {
    expect((await inbox().take(credit('7.00', `no reference ${run}`), 'test')).outcome).toBe('taken');
    const row = await stack.db('bank_credits').whereNull('account_id').andWhere({ amount_minor: 700 }).orderBy('id', 'desc').first('id');
    const { stdout } = await cli('return', row.id);
    expect(stdout).toContain(row.id);
    expect(stdout).not.toContain('FR1420041010050500013M02606');
    expect(await stack.db('bank_credits').where({ id: row.id }).first('status')).toEqual({ status: 'returned' });
    const sepa = (await runBatch()).files.find((f) => f.endsWith('-S'))!;
    const back = await stack.db('bank_returns').where({ credit_id: row.id }).first();
    expect(transfersOf(sepa).transfers).toContainEqual({
      endToEndId: back.end_to_end_id,
      amount: '7.00',
      name: 'Ada Payer',
      iban: 'FR1420041010050500013M02606',
    });
    // Twice: refused, exit 1.
    await expect(cli('return', row.id)).rejects.toMatchObject({ code: 1 });
  });

  it('applies one to a payment funded by transfer with `npm run bank-files -- apply ID PAYMENT`: the payment takes it, the ledger balanced', async () => {
    const p = await stack.http.post('/api/v1/payments', {
      key: account.live_api_key,
      body: validPayment({ funding: 'bank_transfer', amount: 100, currency: 'EUR' }),
    });
    expect(p.status).toBe(201);
    expect((await inbox().take(credit('9.00', `meant for ${run}`), 'test')).outcome).toBe('taken');
    const row = await stack.db('bank_credits').whereNull('account_id').andWhere({ amount_minor: 900 }).orderBy('id', 'desc').first('id');
    const { stdout } = await cli('apply', row.id, p.body.id);
    expect(stdout).toContain(row.id);
    expect(await stack.db('bank_credits').where({ id: row.id }).first('status', 'account_id', 'payment_id')).toEqual({
      status: 'applied',
      account_id: account.account_id,
      payment_id: p.body.id,
    });
    const read = await stack.http.get(`/api/v1/payments/${p.body.id}`, { key: account.live_api_key });
    expect(read.body.funding_instructions.amount_received).toBe(9);
    expect((await findLedgerViolations(stack.db, account.account_id)).violations).toEqual([]);
    // The operator's book gave it up, balanced: its credit's account is zero there.
    expect((await findLedgerViolations(stack.db, 'operator')).violations).toEqual([]);
    const left = await stack
      .db('ledger_account_balances')
      .where({ address: `bank_credit:${row.id}`, account_id: 'operator' })
      .first('balance_minor');
    expect(Number(left.balance_minor)).toBe(0);
    // Twice: refused, exit 1.
    await expect(cli('apply', row.id, p.body.id)).rejects.toMatchObject({ code: 1 });
  });
});
