/**
 * Amounts in minor units at each currency's ISO 4217 exponent: taken, stored and read back unchanged;
 * more digits than the currency has, or a currency without minor units, is a 400.
 */
import { describe, expect, it } from 'vitest';
import { useAccount, useStack, validPayment } from './helpers/stack';

describe('minor units from ISO 4217', () => {
  const stack = useStack();
  const acct = useAccount(stack);

  it.each([
    [10.5, 'HUF', 1050n, 2],
    [10.05, 'IDR', 1005n, 2],
    [1.001, 'IQD', 1001n, 3],
    [99, 'COP', 9900n, 2],
    [1.001, 'KWD', 1001n, 3],
    [1500, 'JPY', 1500n, 0],
  ])('%d %s is taken as %s minor units with exponent %d, and read back unchanged', async (amount, currency, minor, exponent) => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ amount, currency }) });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(amount);
    const row = await stack.db('payments').where({ id: res.body.id }).first();
    expect([BigInt(row.amount_minor), row.amount_exponent]).toEqual([minor, exponent]);
    expect((await stack.http.get(`/api/v1/payments/${res.body.id}`, { key: acct.test_api_key })).body.amount).toBe(amount);
  });

  it.each([
    [1.5, 'JPY'],
    [10.001, 'USD'],
    [1.0001, 'KWD'],
    [1, 'XAU'],
    [1, 'XXX'],
  ])('%d %s is a 400', async (amount, currency) => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ amount, currency }) });
    expect(res.status).toBe(400);
  });

  it('a stored amount keeps its exponent: a row taken with 0 digits reads back in its own scale', async () => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ amount: 10, currency: 'HUF' }) });
    await stack.db('payments').where({ id: res.body.id }).update({ amount_minor: 10, amount_exponent: 0 });
    expect((await stack.http.get(`/api/v1/payments/${res.body.id}`, { key: acct.test_api_key })).body.amount).toBe(10);
  });
});
