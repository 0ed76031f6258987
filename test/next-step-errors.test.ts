/**
 * Errors that say the next step (docs/api-contract.md): a missing field is "required", a 409
 * invalid_transition lists the actions the status allows, an API key sent as a bearer token is
 * told to use X-API-Key, and a currency ISO 4217 knows but payments refuse is refused as such.
 * Each refusal changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack();
const acct = useAccount(stack);

const count = async () => Number((await stack.db('payments').where({ account_id: acct.account_id }).count({ n: '*' }))[0].n);

describe('errors that say the next step', () => {
  it('a field left out is required, not malformed', async () => {
    const before = await count();
    const { recipient_email: _r, amount: _a, ...body } = validPayment();
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'recipient_email', message: 'is required (or name a recipient)' },
        { field: 'amount', message: 'is required' },
      ]),
    );
    expect(res.body.error.message).toContain('recipient_email: is required');
    // A value that is there but wrong still says what is wrong with it.
    const bad = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ recipient_email: 'a@' }) });
    expect(bad.body.error.details).toEqual([{ field: 'recipient_email', message: 'must be a valid e-mail address' }]);
    expect(await count()).toBe(before);
  });

  it.each(['XAU', 'XTS', 'XXX'])('%s is refused as not accepted for payments, not as an unknown code', async (currency) => {
    const before = await count();
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ currency, amount: 10 }) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        field: 'currency',
        message: `${currency} is not accepted for payments: ISO 4217 lists it as a precious metal, a fund or test unit, not a currency`,
      },
    ]);
    expect(await count()).toBe(before);
  });

  it('an unknown code is still an unknown code', async () => {
    const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment({ currency: 'XYZ' }) });
    expect(res.body.error.details).toEqual([{ field: 'currency', message: 'XYZ is not an ISO 4217 currency code' }]);
  });

  it('a 409 invalid_transition lists the actions the status allows', async () => {
    const created = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() });
    const id = created.body.id as string;
    await stack.http.post(`/api/v1/payments/${id}/deposit`, { key: acct.test_api_key });
    const early = await stack.http.post(`/api/v1/payments/${id}/release`, { key: acct.test_api_key });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_transition');
    expect(early.body.error.details).toEqual({ status: 'in_custody', allowed_actions: ['approve', 'refund', 'dispute'] });
    expect(early.body.error.message).toBe(
      'cannot release a payment whose status is in_custody (allowed from in_custody: approve, refund, dispute)',
    );
    expect((await stack.http.get(`/api/v1/payments/${id}`, { key: acct.test_api_key })).body.status).toBe('in_custody');

    await stack.http.post(`/api/v1/payments/${id}/approve`, { key: acct.test_api_key });
    await stack.http.post(`/api/v1/payments/${id}/release`, { key: acct.test_api_key });
    const final = await stack.http.post(`/api/v1/payments/${id}/refund`, { key: acct.test_api_key });
    expect(final.status).toBe(409);
    expect(final.body.error.details).toEqual({ status: 'released', allowed_actions: [] });
    expect(final.body.error.message).toBe('cannot refund a payment whose status is released (released is final)');
  });

  it('an API key sent as a bearer token is told to use X-API-Key', async () => {
    const res = await stack.http.get('/api/v1/payments', { token: acct.test_api_key });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.body.error.message).toBe('this is an API key: send it in the X-API-Key header, not as a bearer token');
    // Any other token that does not verify is still invalid or expired.
    const other = await stack.http.get('/api/v1/payments', { token: 'not-a-token' });
    expect(other.body.error.message).toBe('invalid or expired token');
  });
});
