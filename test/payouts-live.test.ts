/**
 * Live payouts through the bank's own formats (docs/payouts.md, "Live mode"), with a real worker,
 * Temporal and PostgreSQL: pending live payouts written as one pain.001.001.09 file into
 * PAYOUT_OUTBOX_DIR (exact NbOfTxs and CtrlSum, one EndToEndId per payout, the custody account as
 * debtor), a canceled one left out, a batch that fails between recording its payouts and writing
 * its file writing it whole on its retry, a second batch writing nothing; then the bank's answers
 * (test/fixtures/bank-files/live/) dropped into the bank inbox (BANK_INBOX_DIR) and taken by its
 * Temporal Schedule (docs/bank.md): a rejection, a payment, a statement that pays one and returns
 * another, each file taken once for the whole service, each tenant shown only its own entries, an
 * amount that disagrees listed with nothing changed, malformed and hostile files moved to rejected/
 * with their reason; then the reviewer's attacks, each refused with nothing changed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { bankInboxScheduleId } from '../src/platform/worker/schedules';
import { payoutBatchWorkflow } from '../src/platform/workflows.workflow';
import { fileMessageId } from '../src/payouts/payoutBatch.activities';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { CUSTODY_ENV, settlementFile } from './helpers/bankCredits';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payout-outbox-')), 'outbox');
const inbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bank-inbox-')), 'inbox');
const stack = useStack({
  env: {
    ...CUSTODY_ENV,
    PAYOUT_OUTBOX_DIR: outbox,
    // The test runs its batches itself: the schedule's would split them.
    PAYOUT_BATCH_INTERVAL: '365 days',
    BANK_INBOX_DIR: inbox,
    // The inbox's schedule is triggered by the test as each file is dropped.
    BANK_INBOX_INTERVAL: '365 days',
  },
});
const account = useAccount(stack);
const other = useAccount(stack);

const FIXTURES = path.join(__dirname, 'fixtures', 'bank-files');

async function ok(res: { status: number; body: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as any;
}

/**
 * A verified recipient with one bank account and `amount` released to it, in live mode, available:
 * the platform's settlement of the payment booked at the bank (docs/bank.md, "Live availability").
 */
async function fundedLive(key: string, amount: number, currency: string, bankAccount: Record<string, string>) {
  const recipient = await ok(
    await stack.http.post('/api/v1/recipients', { key, body: { email: 'shop@example.com', country: bankAccount.country } }),
    201,
  );
  await ok(await stack.http.post(`/api/v1/recipients/${recipient.id}/verification`, { key, body: { status: 'verified' } }));
  const ba = await ok(
    await stack.http.post(`/api/v1/recipients/${recipient.id}/bank_accounts`, {
      key,
      body: { account_holder_name: 'Shop Owner', currency, ...bankAccount },
    }),
    201,
  );
  const { recipient_email: _e, ...body } = validPayment({ amount, currency, recipient: recipient.id });
  const payment = await ok(await stack.http.post('/api/v1/payments', { key, body }), 201);
  for (const action of ['deposit', 'approve', 'release'])
    await ok(await stack.http.post(`/api/v1/payments/${payment.id}/${action}`, { key, body: {} }));
  const inbox = bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
  expect((await inbox.take(settlementFile(payment.funding_reference, amount.toFixed(2), currency), 'test')).outcome).toBe('taken');
  return { recipient: recipient.id as string, bankAccount: ba.id as string };
}

const payout = async (key: string, recipient: string, currency: string, amount: number) =>
  ok(await stack.http.post('/api/v1/payouts', { key, body: { recipient, currency, amount } }), 201);

const status = async (key: string, id: string) => (await ok(await stack.http.get(`/api/v1/payouts/${id}`, { key }))).status as string;

const runBatch = () =>
  stack.client.workflow.execute(payoutBatchWorkflow, { taskQueue: stack.taskQueue, workflowId: `payout-batch-test-${Date.now()}` });

const sendFile = (key: string, xml: string, contentType = 'application/xml') =>
  stack.http.post('/api/v1/bank_files', { key, raw: xml, headers: { 'Content-Type': contentType } });

beforeAll(() => fs.mkdirSync(inbox, { recursive: true }));
// The stack's schedule would outlive its worker: removed with it.
afterAll(async () => {
  await stack.client.schedule
    .getHandle(bankInboxScheduleId(stack.taskQueue))
    .delete()
    .catch(() => undefined);
});

let dropped = 0;

/**
 * A file as the bank's channel delivers it: written into the inbox (under a dot name first, then
 * renamed, as a dropping client does), the inbox's real Temporal Schedule triggered, and its fate
 * awaited: `taken/` (with the bank file's id, found by its message id) or `rejected/` (with the reason).
 */
async function drop(content: string | Buffer, name = `file-${++dropped}.xml`): Promise<{ taken: boolean; id?: string; reason?: string }> {
  fs.writeFileSync(path.join(inbox, `.${name}.part`), content);
  fs.renameSync(path.join(inbox, `.${name}.part`), path.join(inbox, name));
  await stack.client.schedule.getHandle(bankInboxScheduleId(stack.taskQueue)).trigger(ScheduleOverlapPolicy.BUFFER_ONE);
  const where = await eventually(
    async () => {
      if (fs.existsSync(path.join(inbox, name))) return undefined;
      if (fs.existsSync(path.join(inbox, 'taken', name))) return 'taken' as const;
      // A rejected file's reason lands beside it just after the file itself.
      if (fs.existsSync(path.join(inbox, 'rejected', `${name}.reason.txt`))) return 'rejected' as const;
      return undefined;
    },
    60_000,
    `${name} taken from the inbox`,
  );
  if (where === 'rejected') return { taken: false, reason: fs.readFileSync(path.join(inbox, 'rejected', `${name}.reason.txt`), 'utf8') };
  const messageId = /<MsgId>([^<]+)<\/MsgId>/.exec(content.toString())![1];
  const row = (await stack.db('bank_files').whereNull('account_id').andWhere({ message_id: messageId }).first()) as { id: string };
  return { taken: true, id: row.id };
}

/** A tenant's view of a taken file. */
const seen = async (key: string, id: string) => stack.http.get(`/api/v1/bank_files/${id}`, { key });

/** A hand-written file of test/fixtures/bank-files/live/ with its placeholders filled in (a fresh message id for `__RUN__`). */
const fixture = (file: string, fill: Record<string, string>) =>
  Object.entries({ __RUN__: String(Date.now()), ...fill }).reduce(
    (xml, [name, value]) => xml.replaceAll(name, value),
    fs.readFileSync(path.join(FIXTURES, 'live', file), 'utf8'),
  );

/** What a file says to the bank's channel; the road a file takes to the service is this one helper's. */
const take = async (xml: string) => {
  const result = await drop(xml);
  return { status: result.taken ? 201 : 422, body: result };
};

describe('live payouts and the bank', () => {
  it('writes a pain.001 file of SEPA credit transfers and one of the others, then takes the bank’s answers once each, listing what it cannot match', async () => {
    const key = account.live_api_key;
    const eur = await fundedLive(key, 20, 'EUR', { country: 'DE', iban: 'DE89370400440532013000' });
    const usd = await fundedLive(key, 10, 'USD', { country: 'US', routing_number: '110000000', account_number: '000123456789' });
    const a = await payout(key, eur.recipient, 'EUR', 12.34);
    const b = await payout(key, eur.recipient, 'EUR', 5);
    const c = await payout(key, usd.recipient, 'USD', 7.5);
    const d = await payout(key, eur.recipient, 'EUR', 1);
    expect((await ok(await stack.http.post(`/api/v1/payouts/${d.id}/cancel`, { key, body: {} }))).status).toBe('canceled');
    const strangers = await fundedLive(other.live_api_key, 3, 'EUR', { country: 'DE', iban: 'DE94370400440532010000' });
    const o = await payout(other.live_api_key, strangers.recipient, 'EUR', 1);

    // The batch: every pending live payout in a file, the SEPA credit transfers (A, B, the other
    // account's) in one and the USD one (C) in another, each sent once its file is written; the
    // canceled one in none. The outbox cannot be written at first (a file stands where its directory
    // goes): the batch records its payouts under their files' MsgIds and fails; they stay `pending` (in
    // no file on disk, never `in_transit`), cannot be canceled, nor their bank account deleted; its
    // retry writes the files under the same MsgIds, and only then are they sent.
    fs.writeFileSync(outbox, 'not a directory');
    const run = await stack.client.workflow.start(payoutBatchWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `payout-batch-test-1-${Date.now()}`,
    });
    const recorded = await eventually(async () => {
      const row = (await stack.db('payouts').where({ id: a.id }).first()) as { message_id: string | null };
      return row.message_id ?? undefined;
    });
    // Its first attempt failed: the file is not there, the activity waits for its retry.
    await eventually(async () => {
      const pending = (await run.describe()).raw.pendingActivities ?? [];
      return (pending[0]?.attempt ?? 0) >= 2 ? true : undefined;
    });
    expect(await status(key, a.id)).toBe('pending');
    const cancel = await stack.http.post(`/api/v1/payouts/${a.id}/cancel`, { key, body: {} });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(409);
    const deleting = await stack.http.delete(`/api/v1/recipients/${eur.recipient}/bank_accounts/${eur.bankAccount}`, { key });
    expect(deleting.status, JSON.stringify(deleting.body)).toBe(409);
    expect(deleting.body.error).toMatchObject({ code: 'bank_account_in_use', details: { bank_account: eur.bankAccount } });
    fs.rmSync(outbox);
    const batch = await run.result();
    const [sepaFile, otherFile] = [fileMessageId(batch.messageId, true), fileMessageId(batch.messageId, false)];
    expect(recorded).toBe(sepaFile);
    expect(batch.files).toEqual([sepaFile, otherFile]);
    expect(batch.written).toBe(true);
    for (const p of [a, b, c]) expect(await status(key, p.id)).toBe('in_transit');
    expect(await status(other.live_api_key, o.id)).toBe('in_transit');
    expect(await status(key, d.id)).toBe('canceled');
    type Row = { id: string; amount: string; amount_exponent: number; message_id: string };
    const rows = (await stack.db('payouts').whereIn('message_id', batch.files)) as Row[];
    const idsIn = (file: string) => rows.filter((r) => r.message_id === file).map((r) => r.id);
    expect(idsIn(sepaFile)).toEqual(expect.arrayContaining([a.id, b.id, o.id]));
    expect(idsIn(otherFile)).toEqual(expect.arrayContaining([c.id]));
    expect(rows.map((r) => r.id)).not.toContain(d.id);
    expect(batch.payouts).toBe(rows.length);

    expect(fs.readdirSync(outbox).sort()).toEqual([`${sepaFile}.xml`, `${otherFile}.xml`].sort());
    const initiations = batch.files.map((file) => {
      const doc = new XMLParser({
        ignoreAttributes: false,
        isArray: (name) => ['PmtInf', 'CdtTrfTxInf'].includes(name),
        parseTagValue: false,
      }).parse(fs.readFileSync(path.join(outbox, `${file}.xml`), 'utf8'));
      expect(doc.Document['@_xmlns']).toBe('urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
      const initiation = doc.Document.CstmrCdtTrfInitn;
      const mine = rows.filter((r) => r.message_id === file);
      expect(initiation.GrpHdr.MsgId).toBe(file);
      expect(initiation.GrpHdr.NbOfTxs).toBe(String(mine.length));
      // CtrlSum: the exact sum of the file's transfers' amounts, as decimal text.
      const cents = mine.reduce((sum, r) => sum + BigInt(r.amount) * 10n ** BigInt(2 - r.amount_exponent), 0n);
      expect(initiation.GrpHdr.CtrlSum).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`);
      return initiation;
    });
    // The SEPA file is SEPA throughout; the other names no service level.
    expect(initiations[0].PmtInf.map((p: any) => p.PmtTpInf?.SvcLvl?.Cd)).toEqual(['SEPA']);
    expect(initiations[1].PmtInf.map((p: any) => p.PmtTpInf?.SvcLvl?.Cd)).toEqual([undefined]);
    const transfers = initiations.flatMap((initiation) =>
      (initiation.PmtInf as any[]).flatMap((p) => p.CdtTrfTxInf.map((t: any) => ({ ...t, debtor: p }))),
    );
    expect(transfers.map((t) => t.PmtId.EndToEndId).sort()).toEqual(rows.map((r) => r.id.replace('_', '-')).sort());
    for (const t of transfers) {
      expect([t.debtor.Dbtr.Nm, t.debtor.DbtrAcct.Id.IBAN, t.debtor.DbtrAgt.FinInstnId.BICFI]).toEqual([
        'Custody Ltd',
        'DE89370400440532013000',
        'COBADEFFXXX',
      ]);
    }
    const byE2e = (p: { end_to_end_id: string }) => transfers.find((t) => t.PmtId.EndToEndId === p.end_to_end_id);
    expect(byE2e(a).Amt.InstdAmt).toEqual({ '#text': '12.34', '@_Ccy': 'EUR' });
    expect(byE2e(a).CdtrAcct.Id.IBAN).toBe('DE89370400440532013000');
    expect(byE2e(a).Cdtr.Nm).toBe('Shop Owner');
    // Every name and reference in the SEPA character set: the remittance text names the payout without the `_` of its id.
    for (const t of transfers) {
      expect(t.RmtInf.Ustrd).toBe(t.PmtId.EndToEndId);
      expect(`${t.Cdtr.Nm}${t.RmtInf.Ustrd}`).toMatch(/^[A-Za-z0-9/\-?:().,'+ ]+$/);
    }
    expect(byE2e(c).Amt.InstdAmt).toEqual({ '#text': '7.50', '@_Ccy': 'USD' });
    expect(byE2e(c).CdtrAcct.Id.Othr.Id).toBe('000123456789');
    expect(byE2e(c).CdtrAgt.FinInstnId.ClrSysMmbId.MmbId).toBe('110000000');
    // Outside SEPA the creditor's country travels with it.
    expect(byE2e(c).Cdtr.PstlAdr.Ctry).toBe('US');

    // A second batch finds nothing to send: no new file, no payout in two.
    expect(await runBatch()).toMatchObject({ payouts: 0, written: false, files: [] });
    expect(fs.readdirSync(outbox).sort()).toEqual([`${sepaFile}.xml`, `${otherFile}.xml`].sort());

    const tag = Date.now();
    const fill = (file: string) =>
      fs
        .readFileSync(path.join(FIXTURES, 'live', file), 'utf8')
        .replaceAll('LIVE-', `LIVE-${tag}-`)
        .replaceAll('__MSG__', otherFile)
        .replaceAll('__A__', a.end_to_end_id)
        .replaceAll('__B__', b.end_to_end_id)
        .replaceAll('__C__', c.end_to_end_id)
        .replaceAll('__OTHER__', o.end_to_end_id);

    // pain.002 on C's file: C rejected with AC04 → failed, account_closed; its account errored.
    const report = await drop(fill('pain.002.001.10-rejects-c.xml'));
    expect(report.taken, report.reason).toBe(true);
    const shown = await ok(await seen(key, report.id!));
    expect(shown).toMatchObject({
      id: expect.stringMatching(/^bf_/),
      object: 'bank_file',
      message_id: `LIVE-${tag}-STS-0001`,
      message_type: 'pain.002.001.10',
    });
    expect(shown.entries).toEqual([{ end_to_end_id: c.end_to_end_id, amount: 7.5, currency: 'USD', outcome: 'failed', payout: c.id }]);
    expect(shown.unmatched).toEqual([]);
    expect(await ok(await stack.http.get(`/api/v1/payouts/${c.id}`, { key }))).toMatchObject({
      status: 'failed',
      failure_code: 'account_closed',
    });
    const usdAccounts = await ok(await stack.http.get(`/api/v1/recipients/${usd.recipient}/bank_accounts`, { key }));
    expect(usdAccounts.data[0].status).toBe('errored');
    // The same file again, byte for byte: taken once, nothing changed.
    const again = await drop(fill('pain.002.001.10-rejects-c.xml'));
    expect(again).toEqual({ taken: true, id: report.id });
    expect(await ok(await seen(key, report.id!))).toEqual(shown);
    // The other account's payout was in the file but not in this report: to it, this file is none.
    expect((await seen(other.live_api_key, report.id!)).status).toBe(404);

    // camt.054, the operator's for every account: A paid, and the other account's payout too; B's
    // amount disagrees: listed, nothing changed. Each account sees only its own entries.
    const notification = await drop(fill('camt.054.001.08-pays-a.xml'));
    expect(notification.taken, notification.reason).toBe(true);
    const ours = await ok(await seen(key, notification.id!));
    expect(ours.entries).toEqual([{ end_to_end_id: a.end_to_end_id, amount: 12.34, currency: 'EUR', outcome: 'paid', payout: a.id }]);
    expect(ours.unmatched).toEqual([{ end_to_end_id: b.end_to_end_id, amount: 999.99, currency: 'EUR', reason: 'amount_mismatch' }]);
    const theirs = await ok(await seen(other.live_api_key, notification.id!));
    expect(theirs.entries).toEqual([{ end_to_end_id: o.end_to_end_id, amount: 1, currency: 'EUR', outcome: 'paid', payout: o.id }]);
    expect(theirs.unmatched).toEqual([]);
    expect((await seen(account.test_api_key, notification.id!)).status).toBe(404);
    expect([await status(key, a.id), await status(key, b.id), await status(other.live_api_key, o.id)]).toEqual([
      'paid',
      'in_transit',
      'paid',
    ]);

    // camt.053: A's debit again changes nothing, B is paid, A comes back (AC06 → account_frozen).
    const taken = await drop(fill('camt.053.001.08-pays-b-returns-a.xml'));
    expect(taken.taken, taken.reason).toBe(true);
    const statement = await ok(await seen(key, taken.id!));
    expect(statement.entries.map((e: any) => `${e.payout} ${e.outcome}`)).toEqual([`${a.id} paid`, `${b.id} paid`, `${a.id} returned`]);
    expect(await ok(await stack.http.get(`/api/v1/payouts/${a.id}`, { key }))).toMatchObject({
      status: 'returned',
      failure_code: 'account_frozen',
    });
    expect(await status(key, b.id)).toBe('paid');
    const balances = (await ok(await stack.http.get(`/api/v1/recipients/${eur.recipient}/balance`, { key }))).balances;
    expect(balances).toEqual([{ currency: 'EUR', pending: 0, available: 15, in_transit: 0, paid_out: 5 }]);
    const entries: { type: string }[] = await stack
      .db('ledger_entries')
      .where({ recipient_id: eur.recipient })
      .andWhere('type', 'like', 'payout%')
      .select('type');
    expect(entries.map((e) => e.type).sort()).toEqual(
      ['payout', 'payout', 'payout', 'payout_canceled', 'payout_paid', 'payout_paid', 'payout_returned'].sort(),
    );
    expect(await stack.services.ledger.verify(account.account_id, { workflows: false })).toEqual([]);
  });

  it('rejects what is no bank file of ours into rejected/, naming why, and changes nothing', async () => {
    const key = account.live_api_key;
    const before = await stack.db('bank_files').count({ n: '*' }).first();
    const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name));
    expect((await drop(read('malformed-truncated.xml'))).reason).toMatch(/^not_xml: /);
    expect((await drop(read('camt.052.001.08-unsupported.xml'))).reason).toMatch(/^unsupported_message: /);
    expect((await drop(read('camt.054.001.08-amount-too-precise.xml'))).reason).toMatch(/^invalid_message: /);
    expect((await drop('{"hello": "bank"}', 'hello.json')).reason).toMatch(/^not_xml: /);
    expect(await stack.db('bank_files').count({ n: '*' }).first()).toEqual(before);
    const strangers = await stack.http.get('/api/v1/bank_files/bf_01JNOSUCHFILE000000000000', { key: other.live_api_key });
    expect(strangers.status).toBe(404);
    expect(await stack.db('bank_files').where({ account_id: account.account_id, message_id: 'NTF-20261128-0095' })).toEqual([]);
    expect(key).toBeTruthy();
  });
});

describe('the reviewer’s attacks: a file changes only what the service sent', () => {
  it('a forged pain.002 naming a file never written fails no payout, even one in a file', async () => {
    const key = account.live_api_key;
    const eur = await fundedLive(key, 3, 'EUR', { country: 'DE', iban: 'DE89370400440532013000' });
    const x = await payout(key, eur.recipient, 'EUR', 3);
    const batch = await runBatch();
    expect(batch.written).toBe(true);
    expect(await status(key, x.id)).toBe('in_transit');
    const answer = await take(fixture('pain.002.001.10-forged-other-file.xml', { __X__: x.end_to_end_id }));
    expect(answer.status).toBeLessThan(300);
    expect(await status(key, x.id)).toBe('in_transit');
    const balances = (await ok(await stack.http.get(`/api/v1/recipients/${eur.recipient}/balance`, { key }))).balances;
    expect(balances).toEqual([{ currency: 'EUR', pending: 0, available: 0, in_transit: 3, paid_out: 0 }]);
  });

  it('a forged camt.054 booking a debit for a payout in no file pays nothing', async () => {
    const key = account.live_api_key;
    const eur = await fundedLive(key, 4, 'EUR', { country: 'DE', iban: 'DE89370400440532013000' });
    const x = await payout(key, eur.recipient, 'EUR', 4);
    expect(await status(key, x.id)).toBe('pending');
    const answer = await take(fixture('camt.054.001.08-forged-unfiled.xml', { __X__: x.end_to_end_id }));
    expect(answer.status).toBeLessThan(300);
    expect(await status(key, x.id)).toBe('pending');
    // Still cancelable: the money goes back to available, never out.
    expect((await ok(await stack.http.post(`/api/v1/payouts/${x.id}/cancel`, { key, body: {} }))).status).toBe('canceled');
  });

  it('POST /api/v1/bank_files is retired: 410 naming the inbox, in live and test mode alike, and nothing taken', async () => {
    const before = await stack.db('bank_files').count({ n: '*' }).first();
    const camt = fs.readFileSync(path.join(FIXTURES, 'camt.054.001.08-debits-and-return.xml'), 'utf8');
    for (const key of [account.live_api_key, account.test_api_key]) {
      const res = await sendFile(key, camt);
      expect(res.status, JSON.stringify(res.body)).toBe(410);
      expect(res.body.error).toMatchObject({ code: 'route_retired', message: expect.stringContaining('BANK_INBOX_DIR') });
    }
    expect((await sendFile(account.live_api_key, '{}', 'application/json')).status).toBe(410);
    expect(await stack.db('bank_files').count({ n: '*' }).first()).toEqual(before);
  });

  it('a file under a message id already taken, with other content, is rejected, and the first stands', async () => {
    const key = account.live_api_key;
    const eur = await fundedLive(key, 2, 'EUR', { country: 'DE', iban: 'DE89370400440532013000' });
    const x = await payout(key, eur.recipient, 'EUR', 2);
    expect((await runBatch()).written).toBe(true);
    const run = String(Date.now());
    const first = await drop(
      fixture('pain.002.001.10-accepts-x.xml', { __RUN__: run, __X__: x.end_to_end_id, __MSG__: await fileOf(x.id) }),
    );
    expect(first.taken, first.reason).toBe(true);
    // The same message id, now rejecting X: not answered with the first file's result, not taken.
    const second = await drop(
      fixture('pain.002.001.10-rejects-x.xml', { __RUN__: run, __X__: x.end_to_end_id, __MSG__: await fileOf(x.id) }),
    );
    expect(second.taken).toBe(false);
    expect(second.reason).toMatch(new RegExp(`^message_id_reused: message id SAME-${run} was taken as ${first.id}`));
    expect(await status(key, x.id)).toBe('in_transit');
    const rows = await stack
      .db('bank_files')
      .whereNull('account_id')
      .andWhere({ message_id: `SAME-${run}` });
    expect(rows).toHaveLength(1);
    expect(rows[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(rows[0].raw).toString('utf8')).toContain('<TxSts>ACCP</TxSts>');
    expect(rows[0].received_at).toBeInstanceOf(Date);
  });

  it('hostile files are rejected cleanly, each with its reason, and nothing changes', async () => {
    const before = await stack.db('bank_files').count({ n: '*' }).first();
    const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
    expect((await drop(read('hostile-proto-element.xml'))).reason).toMatch(/^over_limits: "__proto__" is not an element name/);
    const deep = read('hostile-deep-nesting.xml').replace('<!--DEEP-->', '<Nest>'.repeat(10_000) + '</Nest>'.repeat(10_000));
    expect((await drop(deep)).reason).toMatch(/^over_limits: elements nest deeper than 32 levels/);
    const transaction = read('hostile-many-end-to-end-ids.xml').match(/<TxInfAndSts>[\s\S]*<\/TxInfAndSts>/)![0];
    const many = read('hostile-many-end-to-end-ids.xml').replace(
      transaction,
      Array.from({ length: 65_536 }, (_, i) => transaction.replace('__N__', String(i))).join(''),
    );
    expect((await drop(many)).reason).toMatch(/^over_limits: the file names 65536 entries, more than 50000/);
    const attributes = read('hostile-many-attributes.xml');
    const wide = attributes.replace('<!--ATTRIBUTES-->', Array.from({ length: 880_000 }, (_, i) => `a${i}="1"`).join(' '));
    expect(Buffer.byteLength(wide)).toBeLessThan(10 * 1024 * 1024);
    expect((await drop(wide)).reason).toMatch(/^over_limits: an element has more than 8 attributes/);
    const big = attributes.replace('<!--ATTRIBUTES-->', `Note="${'x'.repeat(10_900_000)}"`);
    expect((await drop(big)).reason).toMatch(/^too_large: the file has \d+ bytes, more than 10485760/);
    expect(await stack.db('bank_files').count({ n: '*' }).first()).toEqual(before);
    // The API answered throughout.
    expect((await stack.http.get('/api/v1/payouts', { key: account.live_api_key })).status).toBe(200);
  });
});

/** The MsgId of the pain.001 file a payout went out in. */
async function fileOf(payoutId: string): Promise<string> {
  return ((await stack.db('payouts').where({ id: payoutId }).first()) as { message_id: string }).message_id;
}
