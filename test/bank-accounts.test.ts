/**
 * A recipient's bank accounts (docs/payouts.md, "Bank accounts"): the number checked by the
 * maintained libraries and sealed at rest, shown as last4 and a fingerprint; the default per
 * currency; deletion; tenancy and mode. Bad input is a 400 naming the field that changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { openBankAccountNumber } from '../src/platform/lib/sealedBox';
import { deriveBankAccountKeys } from '../src/payouts/bankAccounts.rules';
import { webhookSecretKey } from '../src/platform/config';
import { useAccount, useStack } from './helpers/stack';

const stack = useStack();
const account = useAccount(stack);
const other = useAccount(stack);

const newRecipient = async (key: string) =>
  (await stack.http.post('/api/v1/recipients', { key, body: { email: 'seller@example.com', country: 'DE' } })).body.id as string;
const add = (key: string, recipient: string, body: Record<string, unknown>) =>
  stack.http.post(`/api/v1/recipients/${recipient}/bank_accounts`, { key, body: { account_holder_name: 'Jane Doe', ...body } });
const list = async (key: string, recipient: string) =>
  (await stack.http.get(`/api/v1/recipients/${recipient}/bank_accounts`, { key })).body;

describe('bank accounts', () => {
  it('takes an IBAN, shows last4 and a fingerprint, and keeps the number sealed', async () => {
    const rcp = await newRecipient(account.test_api_key);
    const res = await add(account.test_api_key, rcp, { country: 'de', currency: 'eur', iban: 'DE94 3704 0044 0532 0100 00' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ba_[0-9A-Z]{26}$/),
      object: 'bank_account',
      recipient: rcp,
      account_holder_name: 'Jane Doe',
      country: 'DE',
      currency: 'EUR',
      last4: '0000',
      fingerprint: expect.stringMatching(/^[\w-]{16}$/),
      status: 'new',
      default_for_currency: true,
    });
    expect(JSON.stringify(res.body)).not.toContain('0532');
    const row = await stack.db('bank_accounts').where({ id: res.body.id }).first();
    expect(row.number_sealed).not.toContain('DE94');
    const { sealKey } = deriveBankAccountKeys(webhookSecretKey(stack.config));
    expect(openBankAccountNumber(row.number_sealed, res.body.id, sealKey)).toBe('iban:DE94370400440532010000');
    expect(await list(account.test_api_key, rcp)).toEqual({ object: 'list', data: [res.body], has_more: false });
  });

  it('takes US routing and account numbers in USD; the same number has the same fingerprint in one account and mode only', async () => {
    const us = { country: 'US', currency: 'USD', routing_number: '110000000', account_number: '000123450001' };
    const a = await add(account.test_api_key, await newRecipient(account.test_api_key), us);
    const b = await add(account.test_api_key, await newRecipient(account.test_api_key), us);
    const live = await add(account.live_api_key, await newRecipient(account.live_api_key), us);
    const theirs = await add(other.test_api_key, await newRecipient(other.test_api_key), us);
    expect([a.status, b.status, live.status, theirs.status]).toEqual([201, 201, 201, 201]);
    expect(a.body.last4).toBe('0001');
    expect(b.body.fingerprint).toBe(a.body.fingerprint);
    expect(live.body.fingerprint).not.toBe(a.body.fingerprint);
    expect(theirs.body.fingerprint).not.toBe(a.body.fingerprint);
  });

  it('refuses a bad number with a 400 naming the field, and writes nothing', async () => {
    const rcp = await newRecipient(account.test_api_key);
    const cases: [Record<string, unknown>, string][] = [
      [{ country: 'DE', currency: 'EUR', iban: 'DE94370400440532010001' }, 'iban'],
      [{ country: 'FR', currency: 'EUR', iban: 'DE94370400440532010000' }, 'country'],
      [{ country: 'US', currency: 'USD', routing_number: '110000001', account_number: '000123450000' }, 'routing_number'],
      [{ country: 'US', currency: 'USD', routing_number: '110000000', account_number: '12' }, 'account_number'],
      [{ country: 'US', currency: 'EUR', routing_number: '110000000', account_number: '000123450000' }, 'currency'],
      [{ country: 'DE', currency: 'EUR' }, 'iban'],
    ];
    for (const [body, field] of cases) {
      const res = await add(account.test_api_key, rcp, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(body)).toContain(field);
    }
    expect((await list(account.test_api_key, rcp)).data).toEqual([]);
  });

  it('refuses a holder name outside the SEPA character set or over 70 characters (\\uffff, the reviewer’s), and writes nothing', async () => {
    const rcp = await newRecipient(account.live_api_key);
    const iban = { country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' };
    for (const name of ['Jane\uffffDoe', 'Shop_Owner', 'Łódź 株式会社 and Partners', 'A & B', 'x'.repeat(71)]) {
      const res = await add(account.live_api_key, rcp, { ...iban, account_holder_name: name });
      expect(res.status, name).toBe(400);
      expect(res.body.error.details[0].field, name).toBe('account_holder_name');
    }
    expect((await list(account.live_api_key, rcp)).data).toEqual([]);
    // The set's every character, at the length it allows, is taken.
    const taken = await add(account.live_api_key, rcp, { ...iban, account_holder_name: "O'Brien-Smith (Ltd.) +/?:,".padEnd(70, 'z') });
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
  });

  it("is another account's or mode's recipient: 404, nothing written", async () => {
    const rcp = await newRecipient(account.test_api_key);
    const body = { country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' };
    expect((await add(other.test_api_key, rcp, body)).status).toBe(404);
    expect((await add(account.live_api_key, rcp, body)).status).toBe(404);
    expect((await stack.http.get(`/api/v1/recipients/${rcp}/bank_accounts`, { key: other.test_api_key })).status).toBe(404);
    expect((await list(account.test_api_key, rcp)).data).toEqual([]);
  });

  it('keeps one default per currency, and a deleted default hands it on; the deleted number is erased', async () => {
    const rcp = await newRecipient(account.test_api_key);
    const first = (await add(account.test_api_key, rcp, { country: 'DE', currency: 'EUR', iban: 'DE94370400440532010000' })).body;
    const second = (await add(account.test_api_key, rcp, { country: 'NL', currency: 'EUR', iban: 'NL82ABNA0417160000' })).body;
    const usd = (
      await add(account.test_api_key, rcp, { country: 'US', currency: 'USD', routing_number: '110000000', account_number: '000123450000' })
    ).body;
    expect([first.default_for_currency, second.default_for_currency, usd.default_for_currency]).toEqual([true, false, true]);
    expect((await stack.http.delete(`/api/v1/recipients/${rcp}/bank_accounts/${first.id}`, { key: other.test_api_key })).status).toBe(404);
    const deleted = await stack.http.delete(`/api/v1/recipients/${rcp}/bank_accounts/${first.id}`, { key: account.test_api_key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: first.id, deleted: true });
    const left = (await list(account.test_api_key, rcp)).data;
    expect(left.map((b: any) => [b.id, b.default_for_currency])).toEqual([
      [second.id, true],
      [usd.id, true],
    ]);
    expect((await stack.db('bank_accounts').where({ id: first.id }).first()).number_sealed).toBeNull();
    expect((await stack.http.delete(`/api/v1/recipients/${rcp}/bank_accounts/${first.id}`, { key: account.test_api_key })).status).toBe(
      404,
    );
  });
});

describe('bank accounts of a redacted recipient', () => {
  it('are erased with it: deleted, number, holder, last4 and fingerprint gone, stored answers too', async () => {
    const rcp = await newRecipient(account.test_api_key);
    const body = { account_holder_name: 'Erin Unique-Holder', country: 'NL', currency: 'EUR', iban: 'NL28ABNA0417160002' };
    const headers = { 'Idempotency-Key': `ba-${rcp}` };
    const created = await stack.http.post(`/api/v1/recipients/${rcp}/bank_accounts`, { key: account.test_api_key, body, headers });
    expect(created.status).toBe(201);
    const redacted = await stack.http.post(`/api/v1/recipients/${rcp}/redact`, { key: account.test_api_key });
    expect(redacted.status).toBe(200);
    expect((await list(account.test_api_key, rcp)).data).toEqual([]);
    const row = await stack.db('bank_accounts').where({ id: created.body.id }).first();
    expect(row).toMatchObject({ number_sealed: null, account_holder_name: '[redacted]', last4: '[redacted]', fingerprint: '[redacted]' });
    expect(row.deleted_at).not.toBeNull();
    const replay = await stack.http.post(`/api/v1/recipients/${rcp}/bank_accounts`, { key: account.test_api_key, body, headers });
    expect(replay.body).toMatchObject({
      id: created.body.id,
      account_holder_name: '[redacted]',
      last4: '[redacted]',
      fingerprint: '[redacted]',
    });
    for (const table of ['bank_accounts', 'idempotency_keys']) {
      const { rows } = await stack.db.raw(
        `select count(*)::int as n from ${table} t where t::text like '%Unique-Holder%' or t::text like ?`,
        [`%${created.body.fingerprint}%`],
      );
      expect(rows[0].n, table).toBe(0);
    }
  });
});
