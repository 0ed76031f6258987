/**
 * The custody account proved against the bank (docs/reconciliation.md), with real PostgreSQL and
 * Temporal: each of the issue's statements (test/fixtures/bank-files/statements/) reconciled against
 * live money written as bank funding writes it (test/helpers/custodyBook.ts, each test in a
 * transaction it rolls back); for any funding, releases, payouts and returns whose bank entries are
 * all booked, the reconciliation balances; and a statement taken by the bank inbox is reconciled by
 * one workflow, once, its outcome in the workflow's details, shown by `npm run reconcile`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../src/platform/lib/logger';
import { freePort } from '../src/platform/lib/net';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { statementReconciler } from '../src/reconciliation/reconciliation.activities';
import { reconciliationWorkflowId, startStatementReconciliation } from '../src/reconciliation/reconciliationStart.activities';
import { custodyBook, rolledBack } from './helpers/custodyBook';
import { eventually, scriptEnv, useAccount, useStack } from './helpers/stack';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const inbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'reconcile-inbox-')), 'inbox');
const stack = useStack({
  env: {
    CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
    CUSTODY_ACCOUNT_IBAN: IBAN,
    CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
    BANK_INBOX_DIR: inbox,
    BANK_INBOX_INTERVAL: '365 days',
  },
});
const CUSTODY_ENV = { CUSTODY_ACCOUNT_NAME: 'Custody Ltd', CUSTODY_ACCOUNT_IBAN: IBAN, CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX' };
const account = useAccount(stack);

const DIR = path.join(__dirname, 'fixtures', 'bank-files', 'statements');
const fixture = (name: string) => fs.readFileSync(path.join(DIR, name));
const D1 = '2026-11-02';
const RECIPIENT = 'rcp_RECONCILIATIONTEST000001';

const reconciler = (db: Knex) => statementReconciler({ db, config: stack.config, logger: createLogger('silent') });

async function reconciled(db: Knex, xml: Buffer | string) {
  const result = await reconciler(db).reconcileBytes(xml);
  if (result.outcome !== 'reconciled') throw new Error(`not reconciled: ${result.reason}`);
  return result;
}

/** The ledger of balanced-day.xml: a bank-funded payment, a reported deposit settled the same day, a released payment's payout paid. */
async function balancedDay(trx: Knex.Transaction) {
  const book = custodyBook(trx, account.account_id, 'SEK');
  const p1 = await book.payment(100000n);
  await book.fundByBank(p1, 100000n, D1, 'RF61PAYONE', 'BK-1102-001');
  const p2 = await book.payment(50000n);
  await book.fundByApi(p2, 50000n, D1);
  await book.settle(p2, 50000n, D1, 'RF42PAYTWO');
  await book.release(p1, RECIPIENT, 30000n, 5000n);
  await book.makeAvailable(RECIPIENT, 25000n);
  await book.payout(RECIPIENT, 20000n);
  await book.payoutPaid(RECIPIENT, 20000n, D1, 'po-RECONPAYOUT1');
  return book;
}

describe('the issue’s statements', () => {
  it('a balanced day: closing balance, every entry and the money owed agree', async () => {
    const r = await rolledBack(stack.db, async (trx) => {
      await balancedDay(trx);
      return reconciled(trx, fixture('balanced-day.xml'));
    });
    expect(r.summary).toBe('balanced');
    expect(r.reconciliation).toMatchObject({
      statement: 'STMT-SEK-20261102',
      date: D1,
      currency: 'SEK',
      bank_closing_balance: 1300,
      ledger_balance: 1300,
      difference: 0,
      owed_total: 1300,
      owed_difference: 0,
      reconciling_items: [],
      unmatched_bank_entries: [],
      unmatched_ledger_entries: [],
      breaks: [],
      status: 'balanced',
    });
    expect(r.reconciliation.id).toMatch(/^rec_/);
  });

  it('a bank fee the ledger does not know is a break: the entry listed, the difference shown', async () => {
    const [first, fee] = await rolledBack(stack.db, async (trx) => {
      await balancedDay(trx);
      return [await reconciled(trx, fixture('balanced-day.xml')), await reconciled(trx, fixture('bank-fee-unknown.xml'))];
    });
    expect(first.reconciliation.status).toBe('balanced');
    expect(fee.summary).toBe('break of 2.50 SEK');
    expect(fee.reconciliation).toMatchObject({
      bank_closing_balance: 1297.5,
      ledger_balance: 1300,
      difference: -2.5,
      owed_difference: 0,
      unmatched_bank_entries: [
        { amount: -2.5, booked_on: '2026-11-03', end_to_end_id: null, reference: null, bank_entry_ref: 'BK-1103-FEE' },
      ],
      unmatched_ledger_entries: [],
      breaks: ['closing_balance', 'unmatched_entries'],
      status: 'break',
    });
  });

  it('a payout the bank booked twice is a break: the second debit is the bank’s alone', async () => {
    const r = await rolledBack(stack.db, async (trx) => {
      await balancedDay(trx);
      return reconciled(trx, fixture('payout-booked-twice.xml'));
    });
    expect(r.summary).toBe('break of 200.00 SEK');
    expect(r.reconciliation).toMatchObject({
      difference: -200,
      unmatched_bank_entries: [{ amount: -200, end_to_end_id: 'po-RECONPAYOUT1', bank_entry_ref: 'BK-1102-004' }],
      unmatched_ledger_entries: [],
      status: 'break',
    });
  });

  it('a credit booked a day late: a reconciling item on the first day, cleared on the next', async () => {
    const [day1, day2] = await rolledBack(stack.db, async (trx) => {
      const book = custodyBook(trx, account.account_id, 'SEK');
      const p3 = await book.payment(40000n);
      await book.fundByApi(p3, 40000n, '2026-11-04');
      const first = await reconciled(trx, fixture('credit-a-day-late-1.xml'));
      await book.settle(p3, 40000n, '2026-11-05', 'RF07PAYTHREE', 'BK-1105-001');
      return [{ ...first, payment: p3 }, await reconciled(trx, fixture('credit-a-day-late-2.xml'))];
    });
    expect(day1.reconciliation).toMatchObject({
      status: 'balanced',
      ledger_balance: 0,
      owed_total: 0,
      owed_difference: 0,
      reconciling_items: [{ kind: 'reported_not_seen_at_bank', payment: day1.payment, amount: 400, reported_on: '2026-11-04' }],
    });
    expect(day2.reconciliation).toMatchObject({ status: 'balanced', ledger_balance: 400, owed_total: 400, reconciling_items: [] });
  });

  it('a statement of another IBAN is rejected, and nothing is written', async () => {
    const [result, rows] = await rolledBack(stack.db, async (trx) => {
      await balancedDay(trx);
      const out = await reconciler(trx).reconcileBytes(fixture('another-iban.xml'));
      return [out, await trx('custody_reconciliations').where({ statement_message_id: 'STMT-OTHER-20261102' })] as const;
    });
    expect(result).toEqual({ outcome: 'rejected', reason: expect.stringMatching(/DE02120300000000202051, not of the custody account/) });
    expect(rows).toEqual([]);
  });

  it('an opening balance that is not the previous closing balance is a break of its own kind', async () => {
    const r = await rolledBack(stack.db, async (trx) => {
      await balancedDay(trx);
      await reconciled(trx, fixture('balanced-day.xml'));
      return reconciled(trx, fixture('opening-not-previous-closing.xml'));
    });
    expect(r.reconciliation).toMatchObject({ bank_opening_balance: 1250, difference: 0, breaks: ['opening_balance'], status: 'break' });
  });
});

/** A statement of `day` as the bank would write it for these booked entries. */
function statementXml(messageId: string, day: string, currency: string, entries: { amount: bigint; ref: string; e2e: boolean }[]) {
  const text = (minor: bigint) =>
    `${(minor < 0n ? -minor : minor) / 100n}.${((minor < 0n ? -minor : minor) % 100n).toString().padStart(2, '0')}`;
  const closing = entries.reduce((s, e) => s + e.amount, 0n);
  const ind = (minor: bigint) => (minor < 0n ? 'DBIT' : 'CRDT');
  const ntry = entries
    .map(
      (e) => `<Ntry><Amt Ccy="${currency}">${text(e.amount)}</Amt><CdtDbtInd>${ind(e.amount)}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${day}</Dt></BookgDt><NtryDtls><TxDtls>${
          e.e2e
            ? `<Refs><EndToEndId>${e.ref}</EndToEndId></Refs>`
            : `<RmtInf><Strd><CdtrRefInf><Ref>${e.ref}</Ref></CdtrRefInf></Strd></RmtInf>`
        }</TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>${messageId}</MsgId><CreDtTm>${day}T23:59:00Z</CreDtTm></GrpHdr>
<Stmt><Id>${messageId}</Id><FrToDt><FrDtTm>${day}T00:00:00Z</FrDtTm><ToDtTm>${day}T23:59:59Z</ToDtTm></FrToDt><Acct><Id><IBAN>${IBAN}</IBAN></Id><Ccy>${currency}</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="${currency}">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${day}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="${currency}">${text(closing)}</Amt><CdtDbtInd>${ind(closing)}</CdtDbtInd><Dt><Dt>${day}</Dt></Dt></Bal>
${ntry}</Stmt></BkToCstmrStmt></Document>`;
}

/** One payment's life, every step's bank entry booked: funded by the bank or reported and settled, released, paid out, maybe returned, refunded and paid back. */
const paymentLife = fc
  .record({
    api: fc.boolean(),
    amount: fc.bigInt({ min: 1n, max: 10_000_000n }),
    released: fc.nat({ max: 100 }),
    fee: fc.nat({ max: 100 }),
    available: fc.nat({ max: 100 }),
    paidOut: fc.nat({ max: 100 }),
    paid: fc.boolean(),
    returned: fc.boolean(),
    refunded: fc.nat({ max: 100 }),
  })
  .map((p) => {
    const part = (of: bigint, pct: number) => (of * BigInt(pct)) / 100n;
    const released = part(p.amount, p.released);
    const fee = part(released, p.fee);
    const available = part(released - fee, p.available);
    const paidOut = part(available, p.paidOut);
    const refunded = part(p.amount - released, p.refunded);
    return { api: p.api, amount: p.amount, released, fee, available, paidOut, paid: p.paid, returned: p.paid && p.returned, refunded };
  });

it('for any fundings, releases, payouts and returns whose bank entries are all booked, the reconciliation balances and owes nothing more', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(paymentLife, { minLength: 1, maxLength: 4 }), async (lives) => {
      run += 1;
      const day = '2026-11-09';
      const r = await rolledBack(stack.db, async (trx) => {
        const book = custodyBook(trx, account.account_id, 'SEK');
        const entries: { amount: bigint; ref: string; e2e: boolean }[] = [];
        for (const [i, life] of lives.entries()) {
          const id = await book.payment(life.amount);
          const ref = `RF${run}X${i}`;
          const recipient = `rcp_PROPERTY${run}X${i}`;
          if (life.api) {
            await book.fundByApi(id, life.amount, day);
            await book.settle(id, life.amount, day, ref);
          } else await book.fundByBank(id, life.amount, day, ref);
          entries.push({ amount: life.amount, ref, e2e: false });
          if (life.released > 0n) await book.release(id, recipient, life.released, life.fee);
          if (life.available > 0n) await book.makeAvailable(recipient, life.available);
          if (life.paidOut > 0n) {
            await book.payout(recipient, life.paidOut);
            if (life.paid) {
              await book.payoutPaid(recipient, life.paidOut, day, `po-P${run}X${i}`);
              entries.push({ amount: -life.paidOut, ref: `po-P${run}X${i}`, e2e: true });
            }
            if (life.returned) {
              await book.payoutReturned(recipient, life.paidOut, day, `po-P${run}X${i}`);
              entries.push({ amount: life.paidOut, ref: `po-P${run}X${i}`, e2e: true });
            }
          }
          if (life.refunded > 0n) {
            await book.refund(id, life.refunded);
            await book.refundPaid(id, life.refunded, day, `rf-P${run}X${i}`);
            entries.push({ amount: -life.refunded, ref: `rf-P${run}X${i}`, e2e: true });
          }
        }
        return reconciled(trx, statementXml(`STMT-PROPERTY-${run}`, day, 'SEK', entries));
      });
      expect(r.reconciliation).toMatchObject({
        status: 'balanced',
        difference: 0,
        owed_difference: 0,
        unmatched_bank_entries: [],
        unmatched_ledger_entries: [],
      });
    }),
    { numRuns: 25 },
  );
});

const run = promisify(execFile);
const reconcileCli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'scripts', 'reconcile.ts'), ...args], {
    env: { ...scriptEnv(stack), ...CUSTODY_ENV },
  });

it('a statement taken by the inbox is reconciled by one workflow, once, however often it is started; the operator sees it', async () => {
  // A statement of its own (CZK: no money of any test) under a message id of this run: an empty balanced day.
  const messageId = `STMT-CZK-${Date.now()}`;
  const xml = statementXml(messageId, '2026-11-10', 'CZK', []);
  const taken = await bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') }).take(
    Buffer.from(xml),
    'test',
  );
  expect(taken.outcome).toBe('taken');
  const handle = stack.client.workflow.getHandle(reconciliationWorkflowId(messageId));
  expect(await handle.result()).toMatchObject({ outcome: 'reconciled', summary: 'balanced' });
  const description = await handle.describe();
  expect(await description.staticSummary()).toBe(`reconcile statement ${messageId}`);

  // Started again (a retried inbox, a worker killed after the start): the same run; reconciled again: the same one result.
  await startStatementReconciliation(stack.client, { messageId, taskQueue: stack.taskQueue });
  expect((await stack.client.workflow.getHandle(reconciliationWorkflowId(messageId)).describe()).runId).toBe(description.runId);
  const again = await Promise.all([reconciler(stack.db).reconcileMessage(messageId), reconciler(stack.db).reconcileMessage(messageId)]);
  const rows = (await stack.db('custody_reconciliations').where({ statement_message_id: messageId })) as { id: string }[];
  expect(rows).toHaveLength(1);
  expect(again.map((a) => (a.outcome === 'reconciled' ? a.reconciliation.id : a.reason))).toEqual([rows[0].id, rows[0].id]);

  const list = JSON.parse((await reconcileCli('list', '--json')).stdout) as { id: string; statement: string }[];
  expect(list.find((r) => r.statement === messageId)).toMatchObject({ id: rows[0].id, status: 'balanced', currency: 'CZK' });
  const shown = (await reconcileCli('show', rows[0].id)).stdout;
  expect(JSON.parse(shown)).toMatchObject({ id: rows[0].id, statement: messageId, difference: 0 });

  // By hand: a statement file reconciled now (exit 0 balanced); one of another account rejected (exit 1), nothing written.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'reconcile-take-')), 'statement.xml');
  fs.writeFileSync(file, statementXml(`${messageId}-BY-HAND`, '2026-11-11', 'CZK', []));
  expect((await reconcileCli('take', file)).stdout).toMatch(new RegExp(`^rec_\\S+ ${messageId}-BY-HAND: balanced`));
  await expect(reconcileCli('take', path.join(DIR, 'another-iban.xml'))).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^rejected: invalid_message: the statement is of DE02120300000000202051/),
  });
  expect(await stack.db('custody_reconciliations').where({ statement_message_id: 'STMT-OTHER-20261102' })).toEqual([]);
});

// Last: the stack's own worker is stopped for good here, workers of their own processes do the work.
describe('a worker killed mid-reconciliation', () => {
  const workers: ChildProcess[] = [];
  afterAll(() => workers.forEach((w) => w.exitCode === null && w.kill('SIGKILL')));

  /** A worker process of its own on the stack's task queue, started and polling. */
  const spawnWorker = async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../src/bin/worker.ts')], {
      env: {
        ...process.env,
        ...CUSTODY_ENV,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        DATABASE_URL: inject('databaseUrl'),
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        WORKER_METRICS_PORT: String(await freePort()),
        SERVICE_JWT_SECRET: randomBytes(32).toString('hex'),
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        AUDIT_SIGNING_KEY: inject('auditSigningKey'),
        BANK_INBOX_DIR: inbox,
        BANK_INBOX_INTERVAL: '365 days',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.push(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    await eventually(async () => (out.includes('worker running') ? true : undefined), 90_000, 'a worker to start');
    return child;
  };

  it(
    'leaves one result: the statement is reconciled once more by the next worker, under its one message id',
    { timeout: 240_000 },
    async () => {
      await stack.stopWorker();
      const first = await spawnWorker();
      // The table held: the first worker's reconciliation computes everything, then waits to write its result.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holding = new Promise<void>((locked, failed) => {
        stack.db
          .transaction(async (trx) => {
            await trx.raw('lock table custody_reconciliations in exclusive mode');
            locked();
            await held;
          })
          .catch(failed);
      });
      await holding;
      const messageId = `STMT-CZK-KILL-${Date.now()}`;
      const taken = await bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') }).take(
        Buffer.from(statementXml(messageId, '2026-11-12', 'CZK', [])),
        'test',
      );
      expect(taken.outcome).toBe('taken');
      await eventually(
        async () => {
          const { rows } = await stack.db.raw<{ rows: unknown[] }>(
            `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'insert into custody_reconciliations%'`,
          );
          return rows.length > 0 ? true : undefined;
        },
        60_000,
        'the reconciliation waiting to write its result',
      );
      const exited = new Promise((resolve) => first.once('exit', resolve));
      first.kill('SIGKILL');
      await exited;
      release();
      await spawnWorker();
      const result = await stack.client.workflow.getHandle(reconciliationWorkflowId(messageId)).result();
      expect(result).toMatchObject({ outcome: 'reconciled', summary: 'balanced' });
      const rows = (await stack.db('custody_reconciliations').where({ statement_message_id: messageId })) as { id: string }[];
      expect(rows).toHaveLength(1);
      expect(result.id).toBe(rows[0].id);
    },
  );
});
