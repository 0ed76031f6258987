/**
 * Funding by bank transfer (docs/bank.md, "Funding by bank transfer"), with a real worker, Temporal
 * and PostgreSQL: a payment created with `funding: "bank_transfer"` answers where and with which
 * ISO 11649 reference its payer transfers; every payment has its reference, the same on a retried
 * create; a client's deposit of such a payment is refused.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isFundingReference } from '../src/payments/fundingReference.rules';
import { findLedgerViolations } from '../src/ledger/ledger.repository';
import { bankInbox } from '../src/payouts/bankInbox.activities';
import { createLogger } from '../src/platform/lib/logger';
import { CUSTODY_ENV, creditsFile } from './helpers/bankCredits';
import { eventually, useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack({
  env: CUSTODY_ENV,
});
const account = useAccount(stack);
const stranger = useAccount(stack);

describe('a payment funded by bank transfer', () => {
  it('answers its funding instructions: the custody account, its reference, the amount and the deposit deadline', async () => {
    const res = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment({ funding: 'bank_transfer', amount: 125.5, currency: 'EUR' }),
    });
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p.funding).toBe('bank_transfer');
    expect(isFundingReference(p.funding_reference)).toBe(true);
    expect(p.funding_instructions).toStrictEqual({
      type: 'bank_transfer',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      account_holder_name: 'Custody Ltd',
      reference: p.funding_reference,
      amount: 125.5,
      currency: 'EUR',
      amount_received: 0,
      amount_remaining: 125.5,
      expires_at: p.deposit_deadline,
    });
    // The read model shows the same.
    const got = await stack.http.get(`/api/v1/payments/${p.id}`, { key: account.test_api_key });
    expect(got.body.funding_instructions).toStrictEqual(p.funding_instructions);
  });

  it('refuses a deposit reported by the client with 409 funded_by_bank_transfer, and changes nothing', async () => {
    const p = (await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: validPayment({ funding: 'bank_transfer' }) }))
      .body;
    const res = await stack.http.post(`/api/v1/payments/${p.id}/deposit`, { key: account.test_api_key });
    expect(res.status).toBe(409);
    expect(res.body.error.code ?? res.body.error?.type ?? res.body.code).toBe('funded_by_bank_transfer');
    expect((await stack.http.get(`/api/v1/payments/${p.id}`, { key: account.test_api_key })).body.status).toBe('pending_deposit');
  });

  it('gives every payment a reference, "api" by default, the same on a retried create', async () => {
    const key = `funding-${Date.now()}`;
    const first = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    const again = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    expect(first.body).toMatchObject({ funding: 'api', funding_instructions: null });
    expect(isFundingReference(first.body.funding_reference)).toBe(true);
    expect(again.body.funding_reference).toBe(first.body.funding_reference);
    // An api payment's deposit is the platform's to report, as before.
    expect((await stack.http.post(`/api/v1/payments/${first.body.id}/deposit`, { key: account.test_api_key })).status).toBe(200);
  });

  it('refuses an unknown funding with 400 naming the field, creating nothing', async () => {
    const res = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: validPayment({ funding: 'card' }) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('funding');
  });
});

/** Until `assertion` holds (the workflow's projection follows the answer), or its last failure after 20 s. */
async function until(assertion: () => Promise<unknown>): Promise<void> {
  let last: unknown;
  await eventually(async () => {
    try {
      await assertion();
      return true;
    } catch (err) {
      last = err;
      return undefined;
    }
  }).catch(() => {
    throw last;
  });
}

/** A test-mode transfer to the custody account, booked through the bank's matching. */
async function transfer(key: string, body: { reference: string; amount: number; currency: string }, idempotencyKey?: string) {
  return stack.http.post('/api/v1/test_helpers/bank_transfers', {
    key,
    body,
    ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}),
  });
}

async function bankPayment(amount = 100, currency = 'EUR') {
  const res = await stack.http.post('/api/v1/payments', {
    key: account.test_api_key,
    body: validPayment({ funding: 'bank_transfer', amount, currency }),
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; funding_reference: string };
}

const read = async (id: string) => (await stack.http.get(`/api/v1/payments/${id}`, { key: account.test_api_key })).body;
const credits = async (key: string, status?: string) =>
  (await stack.http.get(`/api/v1/bank_credits${status ? `?status=${status}` : ''}`, { key })).body.data as any[];

describe('a transfer booked at the bank, matched by its reference', () => {
  it('is booked by a worker, never by the API, which writes no ledger (docs/architecture.md, "One writer per aggregate")', async () => {
    const res = await transfer(account.test_api_key, { reference: 'RF18539007547034', amount: 3, currency: 'EUR' }, 'booked-by-a-worker');
    expect(res.status).toBe(201);
    const [credit] = res.body.bank_credits as { id: string }[];
    const runs = [];
    for await (const w of stack.client.workflow.list({
      query: `WorkflowType = 'simulatedTransferWorkflow' AND WorkflowId STARTS_WITH 'bank-transfer-'`,
    }))
      runs.push(w.workflowId);
    const results = await Promise.all(runs.map((id) => stack.client.workflow.getHandle(id).result() as Promise<{ creditIds: string[] }>));
    expect(results.flatMap((r) => r.creditIds)).toContain(credit.id);
  });

  it('deposits a payment paid exactly: payment.deposited, its ledger from the custody bank account', async () => {
    const p = await bankPayment(100);
    const res = await transfer(account.test_api_key, { reference: p.funding_reference, amount: 100, currency: 'EUR' });
    expect(res.status).toBe(201);
    expect(res.body.bank_credits).toMatchObject([{ object: 'bank_credit', status: 'applied', amount: 100, payment: p.id }]);
    await until(async () => expect((await read(p.id)).status).toBe('in_custody'));
    const got = await read(p.id);
    expect(got).toMatchObject({ amount_held: 100, funding_instructions: { amount_received: 100, amount_remaining: 0 } });
    const ledger = (await stack.http.get(`/api/v1/payments/${p.id}/ledger`, { key: account.test_api_key })).body.data;
    expect(ledger.map((e: any) => e.type)).toEqual(['bank_funding']);
    const events = (await stack.http.get(`/api/v1/events?payment_id=${p.id}`, { key: account.test_api_key })).body.data;
    expect(events.map((e: any) => e.type)).toContain('payment.deposited');
    expect(events.find((e: any) => e.type === 'payment.deposited').data.funded_by).toBe('bank_transfer');
  });

  it('keeps a short payment pending with what it received (payment.partially_funded), then deposits it when the rest comes', async () => {
    const p = await bankPayment(100);
    await transfer(account.test_api_key, { reference: p.funding_reference, amount: 40, currency: 'EUR' });
    await until(async () => expect((await read(p.id)).funding_instructions.amount_received).toBe(40));
    expect(await read(p.id)).toMatchObject({ status: 'pending_deposit', amount_held: 0, funding_instructions: { amount_remaining: 60 } });
    const events = (await stack.http.get(`/api/v1/events?payment_id=${p.id}`, { key: account.test_api_key })).body.data;
    expect(events.map((e: any) => e.type)).toContain('payment.partially_funded');
    // The payer's own bank may split the reference in groups and lower its case.
    const spaced = p.funding_reference.toLowerCase().replace(/(.{4})/g, '$1 ');
    await transfer(account.test_api_key, { reference: spaced, amount: 60, currency: 'EUR' });
    await until(async () => expect((await read(p.id)).status).toBe('in_custody'));
    expect((await read(p.id)).amount_held).toBe(100);
  });

  it('deposits an overpaid payment with its amount; the excess is an unapplied credit of its account', async () => {
    const p = await bankPayment(100);
    const res = await transfer(account.test_api_key, { reference: p.funding_reference, amount: 130, currency: 'EUR' });
    expect(res.body.bank_credits.map((c: any) => [c.status, c.amount])).toEqual([
      ['applied', 100],
      ['unapplied', 30],
    ]);
    await until(async () => expect((await read(p.id)).status).toBe('in_custody'));
    const unapplied = await credits(account.test_api_key, 'unapplied');
    expect(unapplied.find((c) => c.payment === p.id)).toMatchObject({ amount: 30, currency: 'EUR', status: 'unapplied' });
  });

  it('makes a credit in another currency, or naming no payment, an unapplied credit, and takes the same entry once', async () => {
    const p = await bankPayment(100, 'EUR');
    const other = await transfer(account.test_api_key, { reference: p.funding_reference, amount: 100, currency: 'USD' });
    expect(other.body.bank_credits).toMatchObject([{ status: 'unapplied', payment: p.id, currency: 'USD' }]);
    expect((await read(p.id)).status).toBe('pending_deposit');
    const none = await transfer(account.test_api_key, { reference: 'invoice 42', amount: 5, currency: 'EUR' }, `same-${Date.now()}`);
    expect(none.body.bank_credits).toMatchObject([{ status: 'unapplied', payment: null, reference: 'invoice 42' }]);
    const before = (await credits(account.test_api_key)).length;
    // The same request again (its Idempotency-Key) is the same entry: taken once.
    const key = `entry-${Date.now()}`;
    await transfer(account.test_api_key, { reference: 'RF00NOTHING', amount: 1, currency: 'EUR' }, key);
    await transfer(account.test_api_key, { reference: 'RF00NOTHING', amount: 1, currency: 'EUR' }, key);
    expect((await credits(account.test_api_key)).length).toBe(before + 1);
  });

  it("never lets one tenant's transfer fund another's payment, nor shows it another's credits", async () => {
    const p = await bankPayment(100);
    const res = await transfer(stranger.test_api_key, { reference: p.funding_reference, amount: 100, currency: 'EUR' });
    expect(res.body.bank_credits).toMatchObject([{ status: 'unapplied', payment: null }]);
    expect((await read(p.id)).status).toBe('pending_deposit');
    expect((await credits(stranger.test_api_key)).every((c) => c.payment === null)).toBe(true);
    expect((await credits(account.test_api_key)).some((c) => c.id === res.body.bank_credits[0].id)).toBe(false);
  });

  it("records an api payment's settlement from the platform, carrying its reference, as its deposit seen at the bank", async () => {
    const created = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment({ amount: 100, currency: 'EUR' }),
    });
    const p = created.body;
    expect((await stack.http.post(`/api/v1/payments/${p.id}/deposit`, { key: account.test_api_key })).status).toBe(200);
    const res = await transfer(account.test_api_key, { reference: p.funding_reference, amount: 100, currency: 'EUR' });
    expect(res.body.bank_credits).toMatchObject([{ status: 'applied', payment: p.id, amount: 100 }]);
    const entries = await stack.db('ledger_entries').where({ type: 'bank_settlement', bank_reference: p.funding_reference });
    expect(entries).toHaveLength(1);
    expect((await read(p.id)).status).toBe('in_custody');
  });

  it('cancels a payment short at its deposit deadline; what it received becomes an unapplied credit of its account', async () => {
    const p = await bankPayment(100);
    await transfer(account.test_api_key, { reference: p.funding_reference, amount: 25, currency: 'EUR' });
    await until(async () => expect((await read(p.id)).funding_instructions.amount_received).toBe(25));
    const advanced = await stack.http.post(`/api/v1/test_helpers/payments/${p.id}/advance`, {
      key: account.test_api_key,
      body: { seconds: 8 * 24 * 3600 },
    });
    expect(advanced.body.status).toBe('cancelled');
    await until(async () => {
      const left = (await credits(account.test_api_key, 'unapplied')).find((c) => c.payment === p.id);
      expect(left).toMatchObject({ amount: 25, currency: 'EUR', reference: p.funding_reference });
    });
    const ledger = (await stack.http.get(`/api/v1/payments/${p.id}/ledger`, { key: account.test_api_key })).body.data;
    expect(ledger.map((e: any) => e.type)).toEqual(['bank_funding', 'bank_credit_received']);
    // A credit after the payment closed funds nothing: unapplied, of the payment's account.
    const late = await transfer(account.test_api_key, { reference: p.funding_reference, amount: 75, currency: 'EUR' });
    expect(late.body.bank_credits).toMatchObject([{ status: 'unapplied', payment: p.id, amount: 75 }]);
  });

  it('applies an unapplied credit of the account to a payment pending its transfer, once; refuses what does not fit', async () => {
    const p = await bankPayment(50);
    const loose = await transfer(account.test_api_key, { reference: 'no reference here', amount: 50, currency: 'EUR' });
    const credit = loose.body.bank_credits[0];
    expect(credit.status).toBe('unapplied');
    // Another account's payment, and another's credit: not found to it.
    const theirs = await stack.http.post(`/api/v1/bank_credits/${credit.id}/apply`, {
      key: stranger.test_api_key,
      body: { payment: p.id },
    });
    expect(theirs.status).toBe(404);
    const big = await bankPayment(20);
    const tooBig = await stack.http.post(`/api/v1/bank_credits/${credit.id}/apply`, {
      key: account.test_api_key,
      body: { payment: big.id },
    });
    expect(tooBig.status).toBe(409);
    const bad = await stack.http.post(`/api/v1/bank_credits/${credit.id}/apply`, { key: account.test_api_key, body: { payment: 'nope' } });
    expect(bad.status).toBe(400);
    const res = await stack.http.post(`/api/v1/bank_credits/${credit.id}/apply`, { key: account.test_api_key, body: { payment: p.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: credit.id, status: 'applied', payment: p.id });
    await until(async () => expect((await read(p.id)).status).toBe('in_custody'));
    const ledger = (await stack.http.get(`/api/v1/payments/${p.id}/ledger`, { key: account.test_api_key })).body.data;
    expect(ledger.map((e: any) => e.type)).toEqual(['bank_credit_applied']);
    const again = await stack.http.post(`/api/v1/bank_credits/${credit.id}/apply`, {
      key: account.test_api_key,
      body: { payment: big.id },
    });
    expect([again.status, again.body.error?.code ?? again.body.code]).toEqual([409, 'bank_credit_not_unapplied']);
  });

  it("keeps the ledger's invariants (docs/money.md) through every story above, and a payment left partly funded", async () => {
    const p = await bankPayment(100);
    await transfer(account.test_api_key, { reference: p.funding_reference, amount: 10, currency: 'EUR' });
    await until(async () => expect((await read(p.id)).funding_instructions.amount_received).toBe(10));
    await until(async () => expect((await findLedgerViolations(stack.db, account.account_id)).violations).toEqual([]));
    expect((await findLedgerViolations(stack.db, stranger.account_id)).violations).toEqual([]);
  });

  it('refuses a bad body with 400 naming the field, booking nothing', async () => {
    const res = await transfer(account.test_api_key, { reference: 'x', amount: 1.001, currency: 'EUR' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('amount');
  });
});

describe("the bank's files: credits to the custody account matched by reference (live)", () => {
  const inbox = () => bankInbox({ db: stack.db, temporal: stack.client, config: stack.config, logger: createLogger('silent') });
  const live = async (amount: number) => {
    const res = await stack.http.post('/api/v1/payments', {
      key: account.live_api_key,
      body: validPayment({ funding: 'bank_transfer', amount, currency: 'EUR' }),
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; funding_reference: string };
  };
  const readLive = async (id: string) => (await stack.http.get(`/api/v1/payments/${id}`, { key: account.live_api_key })).body;

  it('funds, partly funds and overfunds payments; what funds nothing is unapplied; the same entries again change nothing', async () => {
    const [exact, short, over] = [await live(100), await live(100), await live(100)];
    const refs = { exact: exact.funding_reference, short: short.funding_reference, over: over.funding_reference };
    const messageId = `NTF-${Date.now()}`;
    const taken = await inbox().take(Buffer.from(creditsFile(refs, 'DE89370400440532013000', messageId, `${messageId}-`)), 'test');
    expect(taken.outcome).toBe('taken');
    await until(async () => expect((await readLive(exact.id)).status).toBe('in_custody'));
    expect(await readLive(short.id)).toMatchObject({ status: 'pending_deposit', funding_instructions: { amount_received: 40 } });
    await until(async () => expect((await readLive(over.id)).status).toBe('in_custody'));
    const mine = (await stack.http.get('/api/v1/bank_credits', { key: account.live_api_key })).body.data as any[];
    expect(
      mine
        .filter((c) => c.status === 'unapplied')
        .map((c) => [c.payment, c.amount, c.currency])
        .sort(),
    ).toEqual(
      [
        [exact.id, 100, 'USD'],
        [over.id, 30, 'EUR'],
      ].sort(),
    );
    // Only the last four characters of the payer's account are shown.
    expect(mine.find((c) => c.payment === exact.id && c.status === 'applied')).toMatchObject({ debtor_last4: '2606' });
    // No reference, or a malformed one: the operator's, no tenant's.
    const operators = await stack
      .db('bank_credits')
      .where({ bank_file_id: (taken as { id: string }).id })
      .whereNull('account_id');
    expect(operators.map((r) => Number(r.amount_minor)).sort()).toEqual([500, 700]);
    // The payer's name and account never enter Temporal.
    const history = JSON.stringify(await stack.client.workflow.getHandle(exact.id).fetchHistory());
    expect(history).not.toContain('Ada Payer');
    expect(history).not.toContain('FR1420041010050500013M02606');
    // Erased with the payment: the payer's name and account, all but the last four characters shown.
    expect((await stack.http.post(`/api/v1/payments/${short.id}/cancel`, { key: account.live_api_key })).status).toBe(200);
    expect((await stack.http.post(`/api/v1/payments/${short.id}/redact`, { key: account.live_api_key })).status).toBe(200);
    const kept = await stack.db('bank_credits').where({ payment_id: short.id }).select('debtor_name', 'debtor_iban', 'debtor_last4');
    expect(kept.find((r) => r.debtor_last4 === '6199')).toEqual({ debtor_name: null, debtor_iban: null, debtor_last4: '6199' });
    // The same entries (their AcctSvcrRef) in another file: taken once.
    const before = Number((await stack.db('bank_credits').count({ n: '*' }))[0].n);
    const again = await inbox().take(
      Buffer.from(creditsFile(refs, 'DE89370400440532013000', `${messageId}-again`, `${messageId}-`)),
      'test',
    );
    expect(again.outcome).toBe('taken');
    expect(Number((await stack.db('bank_credits').count({ n: '*' }))[0].n)).toBe(before);
    expect((await readLive(short.id)).funding_instructions.amount_received).toBe(40);
  });

  it("lists the operator's credits (those naming no payment) with `npm run bank-files -- credits --json`", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(__dirname, '../node_modules/tsx/dist/cli.mjs'), path.join(__dirname, '../scripts/bank-files.ts'), 'credits', '--json'],
      {
        env: {
          ...process.env,
          DATABASE_URL: stack.config.DATABASE_URL,
          TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
          TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
        },
      },
    );
    const listed = JSON.parse(stdout) as { object: string; status: string; amount: number; debtor_last4: string | null }[];
    const operators = await stack.db('bank_credits').whereNull('account_id').select('id');
    expect(listed.length).toBe(operators.length);
    expect(listed.every((c) => c.object === 'bank_credit')).toBe(true);
    expect(listed.some((c) => c.amount === 5 && c.status === 'unapplied')).toBe(true);
    // The payer's name and account are never printed, only the last four characters of the account.
    expect(stdout).not.toContain('Bob Payer');
    expect(stdout).not.toContain('DE75512108001245126199');
  });

  it("books nothing of a file whose account is not the custody account's", async () => {
    const p = await live(100);
    const refs = { exact: p.funding_reference, short: p.funding_reference, over: p.funding_reference };
    const before = Number((await stack.db('bank_credits').count({ n: '*' }))[0].n);
    const taken = await inbox().take(
      Buffer.from(creditsFile(refs, 'GB33BUKB20201555555555', `OTHER-${Date.now()}`, `OTHER-${Date.now()}-`)),
      'test',
    );
    expect(taken.outcome).toBe('taken');
    expect(Number((await stack.db('bank_credits').count({ n: '*' }))[0].n)).toBe(before);
    expect((await readLive(p.id)).status).toBe('pending_deposit');
  });
});
